// Invitations of dashboard users: sending one (the mailer namespace's /internal/send-invitation), listing and
// revoking them (/internal/invitations, not in the specification), and accepting one in the authentication
// namespace (/accept-invitation: the new user is signed in as by a login). The rules are core.invitations'.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { identified } from '../../pipeline/identity-errors.js';
import { clientOf, signedInReply } from './auth-routes.js';
import { wpDate } from './views.js';
import { ACCOUNT_ROLES } from '../../../shared/domain/user.js';
import type { ListedInvitation } from '../../../shared/core/identity/invitations.js';
import { dashboardUrlOf } from '../../presenters/links.js';

type Route = DashboardRoute<DashboardCaller>;

/** An invitation as the dashboard shows it: `status` is its state now (`expired` for an open one past its expiry). */
export const invitationView = (i: ListedInvitation) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  team_id: i.teamId,
  status: i.state,
  invited_by: i.invitedBy,
  message_id: i.messageId,
  user_id: i.userId,
  created: wpDate(i.createdAt),
  expires: wpDate(i.expiresAt),
  closed: i.closedAt ? wpDate(i.closedAt) : null,
});

const send: Route = {
  namespace: 'tern/v2',
  path: '/internal/send-invitation',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Invites someone by mail to a role on the account, or on one of its teams; replaces the open invitation to the same email',
      args: Type.Object({
        email: Type.String({ description: 'Who is invited; no user may have this email yet.', minLength: 1, maxLength: 254 }),
        role: oneOf(ACCOUNT_ROLES, { description: 'The role the new user gets (owner: on the account only, invited by an owner).' }),
        team_id: Type.Optional(Type.Integer({ description: "One of the account's teams; absent: the inviter's own team (the account).", minimum: 1 })),
      }),
      async handle({ ctx, user, params, request, log }) {
        const r = { email: params.email, role: params.role, teamId: params.team_id };
        const sent = identified(await ctx.core.invitations.send(signedIn(user).user, r, dashboardUrlOf(ctx, request), log));
        // Not mailed (no usable system sender): the link, for the inviter to pass on, in this answer only.
        const link = sent.unmailed === undefined ? {} : { invitation_link: sent.unmailed.link, mail_problem: sent.unmailed.reason };
        return { status: 201, body: { ...invitationView({ ...sent.invitation, state: sent.invitation.status }), ...link } };
      },
    }),
  ],
};

const collection: Route = {
  namespace: 'tern/v2',
  path: '/internal/invitations',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'write',
      summary: "The account's invitations (a team user's: its team's), newest first, each with its state now",
      args: Type.Object(collectionArgs),
      async handle({ ctx, user, params, request }) {
        const page = identified(await ctx.core.invitations.list(signedIn(user).user, { page: params.page, perPage: params.per_page }));
        return pageReply(request, params, page.rows.map(invitationView), page.total);
      },
    }),
  ],
};

const item: Route = {
  namespace: 'tern/v2',
  path: '/internal/invitations/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      allowBatch: true,
      summary: 'Revokes an open invitation: its link stops working',
      args: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      async handle({ ctx, user, params, log }) {
        const revoked = identified(await ctx.core.invitations.revoke(signedIn(user).user, params.id, log));
        return { body: { deleted: true, previous: invitationView(revoked) } };
      },
    }),
  ],
};

const accept: Route = {
  namespace: 'tern-auth/v1',
  path: '/accept-invitation',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      summary: "Accepts an invitation: creates the user with this name and password and signs them in (a login's answer)",
      args: Type.Object({
        token: Type.String({ description: 'The token of the invitation link.', minLength: 1, maxLength: 200 }),
        name: Type.String({ description: 'The new user’s name.', minLength: 1, maxLength: 100 }),
        password: Type.String({ description: 'The password the new user chooses (12 to 200 characters).', minLength: 1, maxLength: 1000 }),
      }),
      async handle({ ctx, params, request, log }) {
        const acceptance = { token: params.token, name: params.name, password: params.password, client: clientOf(request) };
        return signedInReply(ctx, request, identified(await ctx.core.invitations.accept(acceptance, log)));
      },
    }),
  ],
};

export const invitationRoutes: readonly Route[] = [send, collection, item, accept];
