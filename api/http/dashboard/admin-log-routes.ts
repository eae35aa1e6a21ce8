// The platform's message log (tern/v2 /admin/logs…), for platform operators only: every team's log with the
// dashboard's filters and search, or one team's, and one message by its number (log_id) with its recipients,
// attempts and events as the dashboard's log detail shows them. The rules are core.messageLog's.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { listItem, messageDetail } from '../admin/emails.js';
import { MESSAGE_STATUSES } from '../../../shared/domain/queue-state.js';

type Route = DashboardRoute<DashboardCaller>;

const logs: Route = {
  namespace: 'tern/v2',
  path: '/admin/logs',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Every tenant's message log, newest first (operators): the dashboard log's filters and search, and a tenant filter",
      args: Type.Object({
        ...collectionArgs,
        status: Type.Optional(oneOf(MESSAGE_STATUSES, { description: 'Only messages with a recipient in this status (pending while in the queue).' })),
        tenant_id: Type.Optional(Type.Integer({ description: 'Only the messages of this account or team.', minimum: 1 })),
        domain: Type.Optional(Type.String({ description: 'A domain of any tenant, by id or name.', maxLength: 253 })),
        from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of created_at (a date means its start).', maxLength: 40 })),
        to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of created_at (a date means its end).', maxLength: 40 })),
        search: Type.Optional(
          Type.String({ description: 'Whole words of subject, sender and recipients (word* for a prefix); counted up to the paging depth.', maxLength: 200 }),
        ),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const filters = { teamId: params.tenant_id, status: params.status, domain: params.domain, from: params.from, to: params.to, search: params.search };
        const found = valueOf(await ctx.core.messageLog.listAcrossTeams({ ...corePage(params), ...filters }));
        const items = found.rows.map((m) => ({ log_id: m.logId, tenant_id: m.teamId, ...listItem(m, found.recipientCounts.get(m.id) ?? 0) }));
        return pageReply(request, params, items, found.total);
      },
    }),
  ],
};

const log: Route = {
  namespace: 'tern/v2',
  path: '/admin/logs/{log_id}',
  vars: { log_id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'One message of any tenant by its log_id (operators): its recipients with every delivery attempt, and its events',
      args: Type.Object({ log_id: Type.Integer({ description: 'The message: its log_id, as /admin/logs lists it.', minimum: 1 }) }),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        const found = valueOf(await ctx.core.messageLog.getByLogId(params.log_id));
        return { body: { log_id: params.log_id, tenant_id: found.message.teamId, ...messageDetail(found) } };
      },
    }),
  ],
};

export const adminLogRoutes: readonly Route[] = [logs, log];
