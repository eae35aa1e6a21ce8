// Forgot password in the authentication namespace, for anyone: asking for a reset link by email (the same answer
// whether or not the email is a user's) and setting a new password with the link's token. The web pages
// (/forgot-password, /reset-password) call the same use cases, core.passwordResets.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { identified } from '../../pipeline/identity-errors.js';
import { clientOf } from './auth-routes.js';
import { userView } from './views.js';
import { RESET_REQUESTED } from '../../presenters/messages.js';

type Route = DashboardRoute<DashboardCaller>;

const lostPassword: Route = {
  namespace: 'tern-auth/v1',
  path: '/lost-password',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: "Mails a link to choose a new password when the email is a user's; the answer is the same either way",
      args: Type.Object({ email: Type.String({ description: 'The email address the user signs in with.', minLength: 1, maxLength: 254 }) }),
      async handle({ ctx, params, request, log }) {
        identified(await ctx.core.passwordResets.request({ email: params.email, client: clientOf(request), origin: request.origin }, log));
        return { body: { requested: true, message: RESET_REQUESTED } };
      },
    }),
  ],
};

const resetPassword: Route = {
  namespace: 'tern-auth/v1',
  path: '/reset-password',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: "Sets a new password with a reset link's token (once, before it expires); every session of the user ends",
      args: Type.Object({
        token: Type.String({ description: 'The token of the reset link.', minLength: 1, maxLength: 200 }),
        password: Type.String({ description: 'The new password (12 to 200 characters).', minLength: 1, maxLength: 1000 }),
      }),
      async handle({ ctx, params, log }) {
        const user = identified(await ctx.core.passwordResets.complete({ token: params.token, password: params.password }, log));
        return { body: { reset: true, user: userView(user) } };
      },
    }),
  ],
};

export const passwordResetRoutes: readonly Route[] = [lostPassword, resetPassword];
