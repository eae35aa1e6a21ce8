// The platform's team routes (tern/v2 /admin/tenants…), for platform operators only: every account and team
// with its balance and sending figures, the ranking by volume, one team, what the MTA holds of it now, and
// the platform's suspension and reactivation (recorded in the audit log). The rules are core.adminTeams'.
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { userView } from './views.js';
import { suspensionBody } from '../../../shared/core/presenters.js';
import type { MtaStatus, SendingFigures, AdminTeamDetail, AdminTeamSummary } from '../../../shared/core/admin/teams.js';
import type { Team } from '../../../shared/domain/team.js';

type Route = DashboardRoute<DashboardCaller>;

const TEAM_STATUSES = ['active', 'suspended'] as const;
const TEAM_KINDS = ['account', 'team'] as const;

const isoOf = (epochMs: number): string => new Date(epochMs).toISOString();

export const sendingView = (s: SendingFigures) => ({
  window_days: s.windowDays,
  sent: s.sent,
  bounced: s.bounced,
  complained: s.complained,
  volume: s.volume,
  bounce_rate: s.bounceRate,
  complaint_rate: s.complaintRate,
});

/** Who a team is and whether it may send. */
const teamFacts = (t: Team) => ({
  id: t.id,
  name: t.name,
  kind: t.parentId === null ? ('account' as const) : ('team' as const),
  parent_id: t.parentId,
  status: t.status,
  suspension: t.suspension && suspensionBody(t.suspension),
});

export const teamView = (s: AdminTeamSummary) => ({
  ...teamFacts(s.team),
  plan_type: s.team.planType,
  balance: s.balance,
  created_at: s.team.createdAt,
  sending: sendingView(s.sending),
});

const teamDetailView = (d: AdminTeamDetail) => ({ ...teamView(d), users: d.users.map(userView), domains_count: d.domainsCount, teams_count: d.teamsCount });

const mtaStatusView = (m: MtaStatus) => ({
  tenant: teamFacts(m.team),
  queue: {
    depth: m.queueDepth,
    oldest_queued_at: m.oldestQueuedAt === null ? null : isoOf(m.oldestQueuedAt),
    destinations: m.destinations.map((q) => ({
      domain: q.domain,
      queued: q.queued,
      sending: q.sending,
      deferred: q.deferred,
      oldest_queued_at: isoOf(q.oldestQueuedAt),
    })),
  },
  last_errors: m.lastErrors.map((e) => ({ message_id: e.messageId, email: e.email, domain: e.domain, state: e.state, reply: e.reply, attempts: e.attempts, at: e.at })),
  sending: sendingView(m.sending),
});

const teamId = { id: Type.Integer({ description: 'The tenant: an account or team id.', minimum: 1 }) };
const reasonArg = (what: string) => Type.String({ description: `Why the platform ${what} it: one line, kept in the audit log.`, minLength: 1, maxLength: 500 });

const teams: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Every account and team (operators): status, suspension, balance, sending over the last 30 days and rates; filters and name search',
      args: Type.Object({
        ...collectionArgs,
        status: Type.Optional(oneOf(TEAM_STATUSES, { description: 'Only tenants in this status.' })),
        kind: Type.Optional(oneOf(TEAM_KINDS, { description: 'Only accounts, or only child teams.' })),
        parent_id: Type.Optional(Type.Integer({ description: 'Only the child teams of this account.', minimum: 1 })),
        search: Type.Optional(Type.String({ description: 'Part of the name (ASCII case ignored).', minLength: 1, maxLength: 100 })),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const filter = { status: params.status, kind: params.kind, parentId: params.parent_id, search: params.search };
        const found = await ctx.core.adminTeams.list(filter, corePage(params));
        return pageReply(request, params, found.rows.map(teamView), found.total);
      },
    }),
  ],
};

const sendingStats: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/sending-stats',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Every tenant with the messages it sent, bounced and complained over the last `days` UTC days, the largest volume first (operators)',
      args: Type.Object({
        ...collectionArgs,
        days: Type.Integer({ description: 'The window: this many UTC days, today included (at most the statistics maximum).', default: 30, minimum: 1 }),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const found = valueOf(await ctx.core.adminTeams.sendingStats(params.days, corePage(params)));
        const items = found.rows.map((r) => ({ ...teamFacts(r.team), sending: sendingView(r.sending) }));
        return pageReply(request, params, items, found.total);
      },
    }),
  ],
};

const oneTeam: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/{id}',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'One tenant (operators): its figures, its own users, how many domains and child teams it has',
      args: Type.Object(teamId),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: teamDetailView(valueOf(await ctx.core.adminTeams.get(params.id))) };
      },
    }),
  ],
};

const mtaStatus: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/{id}/mta-status',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'What the MTA holds of a tenant now (operators): recipients in flight by destination, the oldest, the last errors, suspension and rates',
      args: Type.Object(teamId),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: mtaStatusView(valueOf(await ctx.core.adminTeams.mtaStatus(params.id))) };
      },
    }),
  ],
};

const suspend: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/{id}/suspend',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      allowBatch: true,
      // An operator's change counts against no account's write bucket (see authentication.ts accountOf).
      rate: null,
      summary: 'Suspends a tenant as the platform (its owner cannot lift it), with a reason; recorded in the audit log with before and after',
      args: Type.Object({ ...teamId, reason: reasonArg('suspends') }),
      async handle({ ctx, user, params, log }) {
        const team = valueOf(await ctx.core.adminTeams.suspend(operatorOf(user).user, params.id, params.reason, log));
        return { body: teamFacts(team) };
      },
    }),
  ],
};

const reactivate: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/{id}/reactivate',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      allowBatch: true,
      rate: null,
      summary: "Reactivates a tenant (lifting the platform's or its owner's suspension), with a reason; recorded in the audit log with before and after",
      args: Type.Object({ ...teamId, reason: reasonArg('reactivates') }),
      async handle({ ctx, user, params, log }) {
        const team = valueOf(await ctx.core.adminTeams.reactivate(operatorOf(user).user, params.id, params.reason, log));
        return { body: teamFacts(team) };
      },
    }),
  ],
};

export const adminTeamRoutes: readonly Route[] = [teams, sendingStats, oneTeam, mtaStatus, suspend, reactivate];
