// The mailer namespace's domain routes: the team's sending domains as a WordPress collection, adding one (or up
// to 50 in one call), reading and removing one (the /v2 shapes, the /v2 rules: core.domains), figures per domain
// over a period (core.statistics), and the DNS check run on demand (core.domains.checkNow, rate-limited).
import { Type } from '@sinclair/typebox';
import { endpoint, IDENTIFIER, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { collectionArgs, pageReply } from './collection.js';
import { dashboardErrorFor, valueOf } from '../../pipeline/refusal-errors.js';
import { domainDetail, domainListItem } from '../admin/domains.js';
import { domainFiguresView, periodArgs } from './statistics-views.js';
import type { AppContext } from '../../pipeline/context.js';
import { rateLimitHeaders } from '../../../shared/rate-limit.js';
import { BULK_ADD_MAX, type BulkAdded, type CheckedDomain } from '../../../shared/core/domains.js';

type Route = DashboardRoute<DashboardCaller>;

const NS = 'tern/v2';
/** Names one POST /api/domains/bulk may carry. */
export const BULK_MAX = BULK_ADD_MAX;

const domainName = Type.String({ description: 'The domain to send from, e.g. example.com.', minLength: 1, maxLength: 253 });
const domainHash = Type.String({ description: 'The id of the domain (as /v2/domains gives it).', pattern: `^${IDENTIFIER}$` });

/** One name of a bulk add: the created domain, or the error the single add would have answered. */
function bulkResult(ctx: AppContext, { name, added }: BulkAdded) {
  if (added.ok) return { name, status: 201, domain: domainDetail(added.value, ctx) };
  const error = dashboardErrorFor(added.refusal);
  return { name, status: error.status, error: error.body() };
}

/** A check as the verify route answers it: per record what was expected, what was found, and whether it does. */
export function checkView({ domain, check }: CheckedDomain) {
  const record = (role: string, type: string, r: CheckedDomain['check']['dkim']) => ({
    role,
    type,
    name: r.name,
    expected: r.expected,
    found: r.found,
    ok: r.ok,
    ...(r.error ? { error: r.error } : {}),
  });
  return {
    id: domain.id,
    domain_name: domain.name,
    verification_status: domain.verificationStatus,
    verified: check.verified,
    records: [record('dkim', 'TXT', check.dkim), record('spf', 'TXT', check.spf), record('mx', 'MX', check.mx)],
    dmarc_policy: check.dmarcPolicy,
    summary: check.summary,
    checked_at: domain.lastCheckAt,
  };
}

const collection: Route = {
  namespace: NS,
  path: '/api/domains',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's sending domains (the /v2/domains list items)",
      args: Type.Object(collectionArgs),
      async handle({ ctx, user, params, request }) {
        const team = signedIn(user).acting;
        const { rows, total } = await ctx.core.domains.list(team, { page: params.page, perPage: params.per_page });
        return pageReply(
          request,
          params,
          rows.map((d) => domainListItem(d, team)),
          total,
        );
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      rate: 'domains',
      summary: 'Adds a sending domain as a draft (its DKIM key and DNS records generated), as POST /v2/domains',
      args: Type.Object({ name: domainName }),
      async handle({ ctx, user, params, log }) {
        const created = valueOf(await ctx.core.domains.add(signedIn(user).acting, params.name, log));
        return { status: 201, body: domainDetail(created, ctx) };
      },
    }),
  ],
};

const bulk: Route = {
  namespace: NS,
  path: '/api/domains/bulk',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      // Counted per name by the core (addAll), not once per request: the RateLimit-* headers are its decision.
      rate: null,
      summary: `Adds up to ${BULK_MAX} domains, each as POST /api/domains would and each counted against the domain-creation limit; one refused name does not stop the others`,
      args: Type.Object({ names: Type.Array(domainName, { description: 'The domains to add, in order.', minItems: 1, maxItems: BULK_MAX }) }),
      async handle({ ctx, user, params, log }) {
        const added = valueOf(await ctx.core.domains.addAll(signedIn(user).acting, params.names, log));
        const results = added.results.map((r) => bulkResult(ctx, r));
        const created = results.filter((r) => r.status === 201).length;
        return { body: { created, failed: results.length - created, results }, headers: rateLimitHeaders(added.rate) };
      },
    }),
  ],
};

const sendingStats: Route = {
  namespace: NS,
  path: '/api/domains/sending-stats',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'Per live domain of the team over a period (default the last 30 days), recipients by status: sent, bounced, complained, suppressed, rates',
      args: Type.Object(periodArgs),
      async handle({ ctx, user, params }) {
        const stats = valueOf(await ctx.core.statistics.domainSendingStats(signedIn(user).acting, params));
        return { body: { period: stats.period, domains: stats.domains.map(domainFiguresView) } };
      },
    }),
  ],
};

const item: Route = {
  namespace: NS,
  path: '/api/domains/{domain_hash}',
  vars: { domain_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'A domain with its DNS records and verification state, as GET /v2/domains/{id}',
      args: Type.Object({ domain_hash: domainHash }),
      async handle({ ctx, user, params }) {
        return { body: domainDetail(valueOf(await ctx.core.domains.get(signedIn(user).acting, params.domain_hash)), ctx) };
      },
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      allowBatch: true,
      summary: 'Removes a domain (its sending keys limited to it are revoked), as DELETE /v2/domains/{id}',
      args: Type.Object({ domain_hash: domainHash }),
      async handle({ ctx, user, params, log }) {
        const team = signedIn(user).acting;
        const { domain, recordsToRemove } = valueOf(await ctx.core.domains.remove(team, params.domain_hash, log));
        const warning = `Remove the DNS records Tern asked for from the zone of ${domain.name}: ${recordsToRemove.join(', ')}`;
        return { body: { deleted: true, previous: domainListItem(domain, team), records_to_remove: recordsToRemove, warning } };
      },
    }),
  ],
};

const verify: Route = {
  namespace: NS,
  path: '/api/domains/{domain_hash}/verify',
  vars: { domain_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'Runs the DNS check of the domain now (rate-limited per domain) and answers per record: expected, found, ok',
      args: Type.Object({ domain_hash: domainHash }),
      async handle({ ctx, user, params, log }) {
        return { body: checkView(valueOf(await ctx.core.domains.checkNow(signedIn(user).acting, params.domain_hash, log))) };
      },
    }),
  ],
};

/** The static paths first: the router takes the first route whose path matches (`bulk` would match {domain_hash}). */
export const domainRoutes: readonly Route[] = [collection, bulk, sendingStats, item, verify];
