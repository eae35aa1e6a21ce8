// The platform's domain routes (tern/v2 /admin/domains…), for platform operators only: every team's sending
// domains with their team, the ranking by what they sent, one domain as the dashboard's domain view shows it,
// and its DNS check run now (the dashboard's verify check, under its per-domain rate limit). The rules are
// core.adminDomains'.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { checkView } from './domain-routes.js';
import { sendingView } from './admin-tenant-routes.js';
import { domainDetail } from '../admin/domains.js';
import { VERIFICATION_STATUSES } from '../../../shared/domain/sending-domain.js';
import type { Team } from '../../../shared/domain/team.js';
import type { DomainSending, TeamDomain } from '../../../shared/core/admin/domains.js';

type Route = DashboardRoute<DashboardCaller>;

/** The team a domain belongs to, as the admin lists name it. */
const teamOf = (t: Team) => ({ id: t.id, name: t.name, kind: t.parentId === null ? ('account' as const) : ('team' as const), status: t.status });

/** A domain's two names: its number (the admin routes' {id}) and its id on its team's routes (domain_hash). */
const idsOf = ({ domain }: TeamDomain) => ({ id: domain.number, domain_hash: domain.id, domain_name: domain.name });

const domainItem = (row: TeamDomain) => ({
  ...idsOf(row),
  tenant_id: row.team.id,
  tenant_name: row.team.name,
  verification_status: row.domain.verificationStatus,
  verified_at: row.domain.verifiedAt,
  last_checked_at: row.domain.lastCheckAt,
  created_at: row.domain.createdAt,
});

const domainNumber = { id: Type.Integer({ description: 'The domain: its number, as /admin/domains lists it.', minimum: 1 }) };

const domains: Route = {
  namespace: 'tern/v2',
  path: '/admin/domains',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Every tenant's sending domains (operators): name, tenant, verification, last check; filters and name search",
      args: Type.Object({
        ...collectionArgs,
        status: Type.Optional(oneOf(VERIFICATION_STATUSES, { description: 'Only domains in this verification status.' })),
        tenant_id: Type.Optional(Type.Integer({ description: 'Only the domains of this account or team.', minimum: 1 })),
        search: Type.Optional(Type.String({ description: 'Part of the name, matched literally.', minLength: 1, maxLength: 253 })),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const filter = { status: params.status, teamId: params.tenant_id, search: params.search };
        const found = await ctx.core.adminDomains.list(filter, corePage(params));
        return pageReply(request, params, found.rows.map(domainItem), found.total);
      },
    }),
  ],
};

const sendingStats: Route = {
  namespace: 'tern/v2',
  path: '/admin/domains/sending-stats',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Every domain with the messages it sent, bounced and complained over the last `days` UTC days, the largest volume first (operators)',
      args: Type.Object({
        ...collectionArgs,
        days: Type.Integer({ description: 'The window: this many UTC days, today included (at most the statistics maximum).', default: 30, minimum: 1 }),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const found = valueOf(await ctx.core.adminDomains.sendingStats(params.days, corePage(params)));
        const items = found.rows.map((r: DomainSending) => ({ ...idsOf(r), tenant_id: r.team.id, tenant_name: r.team.name, sending: sendingView(r.sending) }));
        return pageReply(request, params, items, found.total);
      },
    }),
  ],
};

const domain: Route = {
  namespace: 'tern/v2',
  path: '/admin/domains/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'One domain (operators): its DNS records and verification state as the dashboard shows them, and its tenant',
      args: Type.Object(domainNumber),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        const found = valueOf(await ctx.core.adminDomains.get(params.id));
        return { body: { ...domainDetail(found.domain, ctx), ...idsOf(found), tenant: teamOf(found.team) } };
      },
    }),
  ],
};

const dns: Route = {
  namespace: 'tern/v2',
  path: '/admin/domains/{id}/dns',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Runs the domain's DNS check now and answers per record: expected, found, ok (operators; the dashboard's per-domain rate limit applies)",
      args: Type.Object(domainNumber),
      async handle({ ctx, user, params, log }) {
        operatorOf(user);
        const checked = valueOf(await ctx.core.adminDomains.checkNow(params.id, log));
        return { body: { ...checkView(checked), id: checked.number, domain_hash: checked.domain.id, tenant: teamOf(checked.team) } };
      },
    }),
  ],
};

/** The static paths first: the router takes the first route whose path matches. */
export const adminDomainRoutes: readonly Route[] = [domains, sendingStats, domain, dns];
