// /v2/suppressions: the team's suppression list; removals are limited per account per day, counted in
// Redis so that the dashboard shares the same counter.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route.js';
import { ListEnvelope, PageQuery } from '../schemas/common.js';
import { adminError } from '../../shared/errors.js';
import { redisKeys } from '../../shared/redis-keys.js';
import { secondsUntilNextUtcDay, utcDay } from '../../shared/time.js';
import { SUPPRESSION_STATUSES } from '../../domain/suppression.js';
import type { AppContext } from '../context.js';
import { envelope, pageFrom } from '../paging.js';

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
    const { rows, total } = await ctx.store.suppressions.list(caller.acting.id, { ...page, search: query.search || undefined, status: query.status });
    const items = rows.map((s) => ({ email: s.email, status: s.status, reason: s.reason, message_id: s.messageId, created_at: s.createdAt }));
    return { body: envelope(items, total, page) };
  },
});

/** Counts one removal against the account's daily allowance; refuses when none is left. */
async function takeRemoval(ctx: AppContext, rootId: number): Promise<{ used: number; release: () => Promise<void> }> {
  const key = redisKeys.suppressionRemovals(rootId, utcDay());
  const limit = ctx.config.limits.suppressionRemovalsPerDay;
  const [[, used]] = (await ctx.redis.multi().incr(key).expire(key, 2 * 86_400).exec()) as [[Error | null, number]];
  const release = async () => void (await ctx.redis.decr(key));
  if (used > limit) {
    await release();
    const retry = String(secondsUntilNextUtcDay());
    throw adminError(
      'daily_limit_reached',
      `The account has used its ${limit} suppression removals for today (UTC)`,
      { used_today: String(limit), remaining_today: '0', daily_limit: String(limit) },
      { 'Retry-After': retry },
    );
  }
  return { used, release };
}

const notListed = (email: string) => adminError('not_found', `${email} is not on the suppression list`);

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
  async handle({ ctx, caller, query, body }) {
    const email = (body?.email ?? query.email)?.trim().toLowerCase();
    if (!email) throw adminError('validation_failed', 'email is required, in the query or in the JSON body', { field: 'email' });
    const limit = ctx.config.limits.suppressionRemovalsPerDay;
    // Checked before counting, so that requests for unlisted addresses never hold a unit of the
    // allowance, even briefly, while a concurrent real removal is being counted.
    if (!(await ctx.store.suppressions.isSuppressed(caller.acting.id, email))) throw notListed(email);
    const taken = await takeRemoval(ctx, caller.rootId);
    if (!(await ctx.store.suppressions.remove(caller.acting.id, email))) {
      await taken.release();
      throw notListed(email);
    }
    ctx.log.info({ team: caller.acting.id, email }, 'suppression removed');
    return {
      body: {
        deleted: true,
        message: `${email} was removed from the suppression list`,
        used_today: taken.used,
        remaining_today: Math.max(0, limit - taken.used),
        daily_limit: limit,
      },
    };
  },
});

export const suppressionRoutes: AnyRoute[] = [list, remove];
