// /v2/suppressions: the team's suppression list; removals are limited per account per day, counted in
// Redis so that the dashboard shares the same counter.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { ListEnvelope, PageQuery } from '../schemas/common.js';
import { adminError } from '../../../shared/errors.js';
import { SUPPRESSION_STATUSES } from '../../../shared/domain/suppression.js';
import { suppressionItem } from '../../presenters/suppressions.js';
import { envelope, pageFrom } from '../../pipeline/paging.js';
import { valueOf } from './refusal-errors.js';

const Status = Type.Union(SUPPRESSION_STATUSES.map((s) => Type.Literal(s)));
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' });

const SuppressionItem = Type.Object({
  email: Type.String(),
  status: Status,
  reason: Type.String(),
  message_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

const RemovalResult = Type.Object({
  deleted: Type.Boolean(),
  message: Type.String(),
  used_today: Type.Integer(),
  remaining_today: Type.Integer(),
  daily_limit: Type.Integer(),
});

const list = defineRoute({
  method: 'GET',
  path: '/v2/suppressions',
  summary: 'List the team’s suppressed addresses',
  tag: 'Suppressions',
  scopes: ['suppressions:read'],
  rate: 'writes-when-search',
  query: Type.Object({ ...PageQuery, search: Type.Optional(Type.String({ maxLength: 254 })), status: Type.Optional(Status) }),
  responses: { 200: { description: 'Suppressions', schema: ListEnvelope(SuppressionItem) } },
  async handle({ ctx, caller, query }) {
    const page = pageFrom(query, ctx.config);
    const { rows, total } = await ctx.core.suppressions.list(caller.acting, { ...page, search: query.search || undefined, status: query.status });
    return { body: envelope(rows.map(suppressionItem), total, page) };
  },
});

const remove = defineRoute({
  method: 'DELETE',
  path: '/v2/suppressions',
  summary: 'Remove an address from the suppression list (email in the query or the JSON body)',
  tag: 'Suppressions',
  scopes: ['suppressions:write'],
  rate: 'writes',
  query: Type.Object({ email: Type.Optional(Email) }),
  body: Type.Object({ email: Email }, { additionalProperties: false }),
  bodyOptional: true,
  responses: {
    200: { description: 'Removed', schema: RemovalResult },
    404: { description: 'The address is not on the list' },
    429: { description: 'The daily removal limit is reached' },
  },
  async handle({ ctx, caller, query, body, log }) {
    const email = body?.email ?? query.email;
    if (!email?.trim()) throw adminError('validation_failed', 'email is required, in the query or in the JSON body', { field: 'email' });
    const removal = valueOf(await ctx.core.suppressions.remove(caller.acting, caller.accountId, email, log));
    return {
      body: {
        deleted: true,
        message: `${removal.email} was removed from the suppression list`,
        used_today: removal.usedToday,
        remaining_today: removal.remainingToday,
        daily_limit: removal.dailyLimit,
      },
    };
  },
});

export const suppressionRoutes: AnyRoute[] = [list, remove];
