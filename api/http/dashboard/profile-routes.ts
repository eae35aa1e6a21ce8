// The signed-in user's own profile in the mailer namespace (tern/v2): read it, change the name or (with the
// current password) the email, and change the password, which ends the user's other sessions. These and
// logout are what a session may still call while a one-time password must be changed.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { signedInUser, type DashboardCaller } from './authentication.js';
import { identified } from '../../pipeline/identity-errors.js';
import { profileView } from './views.js';
import type { AppContext } from '../../pipeline/context.js';
import type { User } from '../../../shared/domain/user.js';

type Route = DashboardRoute<DashboardCaller>;

const PASSWORD_TEXT = { minLength: 1, maxLength: 1000 } as const;

const profileOf = async (ctx: AppContext, user: User) => profileView(identified(await ctx.core.users.profile(user)));

const profile: Route = {
  namespace: 'tern/v2',
  path: '/profile',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      passwordChangeStep: 'read_profile',
      summary: 'The signed-in user: id, email, name, role, its team and account, whether its password must change, creation time',
      args: Type.Object({}),
      handle: async ({ ctx, user }) => ({ body: await profileOf(ctx, signedInUser(user).user) }),
    }),
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: "Changes the signed-in user's name, or its email (which needs current_password); on any refusal nothing changes",
      args: Type.Object({
        name: Type.Optional(Type.String({ description: 'The display name: one line, at most 100 characters.' })),
        email: Type.Optional(Type.String({ description: 'The login email; changing it needs current_password.' })),
        current_password: Type.Optional(Type.String({ description: 'The current password, required to change the email.', ...PASSWORD_TEXT })),
      }),
      async handle({ ctx, user, params, log }) {
        const change = { name: params.name, email: params.email, currentPassword: params.current_password };
        const updated = identified(await ctx.core.users.updateProfile(signedInUser(user).user, change, log));
        return { body: await profileOf(ctx, updated) };
      },
    }),
  ],
};

const updatePassword: Route = {
  namespace: 'tern/v2',
  path: '/profile/update-password',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      passwordChangeStep: 'change_password',
      summary: "Changes the signed-in user's password: every other session of the user ends, application passwords stay",
      args: Type.Object({
        current_password: Type.String({ description: 'The current password (the one-time password at the first login).', ...PASSWORD_TEXT }),
        new_password: Type.String({ description: 'The new password: 12 to 200 characters, not the current one.', ...PASSWORD_TEXT }),
      }),
      async handle({ ctx, user, params, log }) {
        const caller = signedInUser(user);
        const change = { currentPassword: params.current_password, newPassword: params.new_password, keepSessionId: caller.session?.id };
        const updated = identified(await ctx.core.users.changePassword(caller.user, change, log));
        return { body: await profileOf(ctx, updated) };
      },
    }),
  ],
};

export const profileRoutes: readonly Route[] = [profile, updatePassword];
