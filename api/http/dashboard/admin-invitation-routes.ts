// The platform's invitations (tern/v2 /admin/invitations…), for platform operators only: inviting a new client
// account's owner by mail, listing every platform invitation with its state, revoking an open one. Each change
// is recorded in the audit log. The link is accepted by the account invitations' route (POST
// /api/tern-auth/v1/accept-invitation) and page. The rules are core.platformInvitations'.
import { Type } from '@sinclair/typebox';
import { MAX_CREDITS_MOVED } from '../../../shared/core/credits.js';
import type { ListedPlatformInvitation } from '../../../shared/core/admin/invitations.js';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { identified } from '../../pipeline/identity-errors.js';
import { dashboardUrlOf } from '../../presenters/links.js';

type Route = DashboardRoute<DashboardCaller>;

/** A platform invitation as operators see it: `status` is its state now (`expired` for an open one past its expiry). */
export const platformInvitationView = (i: ListedPlatformInvitation) => ({
  id: i.id,
  email: i.email,
  account_name: i.accountName,
  credits: i.credits,
  status: i.state,
  invited_by: i.invitedBy,
  message_id: i.messageId,
  account_id: i.accountId,
  user_id: i.userId,
  created_at: i.createdAt,
  expires_at: i.expiresAt,
  closed_at: i.closedAt,
});

const collection: Route = {
  namespace: 'tern/v2',
  path: '/admin/invitations',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Every platform invitation to open a client account, newest first, each with its state: open, accepted, revoked, expired or replaced (operators)',
      args: Type.Object(collectionArgs),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const page = await ctx.core.platformInvitations.list(corePage(params));
        return pageReply(request, params, page.rows.map(platformInvitationView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      allowBatch: true,
      // An operator's change counts against no account's write bucket (see authentication.ts accountOf).
      rate: null,
      summary:
        "Invites a new client account's owner by mail (operators): accepting the link creates the account, with these credits, and its owner; replaces the open invitation to the same email. Recorded in the audit log",
      args: Type.Object({
        email: Type.String({ description: 'The future owner; no user may have this email yet.', minLength: 1, maxLength: 254 }),
        account_name: Type.String({ description: 'The name of the account to create (2 to 100 characters).', minLength: 1, maxLength: 100 }),
        credits: Type.Optional(
          Type.Integer({
            description: 'Credits granted to the account when it is created (a ledger grant by this operator).',
            default: 0,
            minimum: 0,
            maximum: MAX_CREDITS_MOVED,
          }),
        ),
      }),
      async handle({ ctx, user, params, request, log }) {
        const r = { email: params.email, accountName: params.account_name, credits: params.credits };
        const sent = identified(await ctx.core.platformInvitations.send(operatorOf(user).user, r, dashboardUrlOf(ctx, request), log));
        return { status: 201, body: platformInvitationView(sent.invitation) };
      },
    }),
  ],
};

const item: Route = {
  namespace: 'tern/v2',
  path: '/admin/invitations/{invitation_id}',
  vars: { invitation_id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['DELETE'],
      permission: 'operator',
      allowBatch: true,
      rate: null,
      summary: 'Revokes an open platform invitation: its link stops working (operators); recorded in the audit log',
      args: Type.Object({ invitation_id: Type.Integer({ description: 'The platform invitation.', minimum: 1 }) }),
      async handle({ ctx, user, params, log }) {
        const revoked = identified(await ctx.core.platformInvitations.revoke(operatorOf(user).user, params.invitation_id, log));
        return { body: { deleted: true, previous: platformInvitationView(revoked) } };
      },
    }),
  ],
};

export const adminInvitationRoutes: readonly Route[] = [collection, item];
