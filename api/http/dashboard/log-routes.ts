// The mailer's message log: GET /api/logs (the /v2/emails filters and search, as a WordPress collection whose
// X-WP-Total is /v2's total) and GET /api/logs/{log_hash} (the full record as /v2 shows it). Translation only.
import { Type } from '@sinclair/typebox';
import { IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { corePage } from './mailer-paging.js';
import { listItem, messageDetail } from '../admin/emails.js';
import { MESSAGE_STATUSES } from '../../../shared/domain/queue-state.js';

type Route = DashboardRoute<DashboardCaller>;

const logs: Route = {
  namespace: 'tern/v2',
  path: '/api/logs',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's message log, newest first (the /v2/emails filters and search)",
      args: Type.Object({
        ...collectionArgs,
        status: Type.Optional(oneOf(MESSAGE_STATUSES, { description: 'Only messages with a recipient in this status (pending while in the queue).' })),
        domain: Type.Optional(Type.String({ description: 'A domain of the team, by id or name.', maxLength: 253 })),
        from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of created_at (a date means its start).', maxLength: 40 })),
        to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of created_at (a date means its end).', maxLength: 40 })),
        search: Type.Optional(
          Type.String({ description: 'Whole words of subject, sender and recipients (word* for a prefix); counted up to the paging depth.', maxLength: 200 }),
        ),
      }),
      async handle({ ctx, user, params, request }) {
        const page = corePage(params);
        const filters = { status: params.status, domain: params.domain, from: params.from, to: params.to, search: params.search };
        const found = valueOf(await ctx.core.messageLog.list(signedIn(user).acting, { ...page, ...filters }));
        const items = found.rows.map((m) => listItem(m, found.recipientCounts.get(m.id) ?? 0));
        return pageReply(request, params, items, found.total);
      },
    }),
  ],
};

const log: Route = {
  namespace: 'tern/v2',
  path: '/api/logs/{log_hash}',
  vars: { log_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'One message: its recipients with every delivery attempt, and its events',
      args: Type.Object({ log_hash: Type.String({ description: 'The message id.', maxLength: 64 }) }),
      handle: async ({ ctx, user, params }) => ({ body: messageDetail(valueOf(await ctx.core.messageLog.get(signedIn(user).acting, params.log_hash))) }),
    }),
  ],
};

export const logRoutes: readonly Route[] = [logs, log];
