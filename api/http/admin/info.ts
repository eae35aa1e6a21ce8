// GET /v2/info: the account summary. No scope needed; the domain list only with domains:read.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { allows } from '../../../shared/scopes.js';
import { DomainListItem, domainListItem } from './domains.js';
import { suspensionBody } from '../../../shared/core/presenters.js';

const Count = Type.Integer({ minimum: 0 });
const SuspensionBody = Type.Object(
  {
    by: Type.Union([Type.Literal('account'), Type.Literal('platform')]),
    reason: Type.String(),
    suspended_at: Type.String({ format: 'date-time' }),
    detail: Type.Union([
      Type.Object({
        rate: Type.Union([Type.Literal('bounce'), Type.Literal('complaint')]),
        window_days: Count,
        volume: Count,
        bounced: Count,
        complained: Count,
        bounce_rate: Type.Number(),
        complaint_rate: Type.Number(),
        thresholds: Type.Object({
          min_volume: Count,
          min_bounces: Count,
          min_complaints: Count,
          max_bounce_rate: Type.Number(),
          max_complaint_rate: Type.Number(),
        }),
      }),
      Type.Null(),
    ]),
  },
  { description: 'Present only while the team is suspended: who suspended it, why and when; detail when a policy did' },
);

const Summary = Type.Object({
  account: Type.Object({
    id: Type.Integer(),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    plan_type: Type.String(),
    credit_balance: Type.Integer(),
    credits_shared: Type.Boolean(),
    limit_per_second: Type.Integer(),
    backend_region: Type.String(),
    bounce_rate: Type.Number(),
    complaint_rate: Type.Number(),
    suspension: Type.Optional(SuspensionBody),
  }),
  key: Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    type: Type.Literal('admin'),
    acting_on: Type.Integer(),
    owned_by: Type.Integer(),
    scopes: Type.Array(Type.String()),
  }),
  domains: Type.Optional(Type.Array(DomainListItem)),
});

const info = defineRoute({
  method: 'GET',
  path: '/v2/info',
  summary: 'Summary of the account acted on and of the key',
  tag: 'Account',
  scopes: [],
  rate: null,
  responses: { 200: { description: 'Account summary', schema: Summary } },
  async handle({ ctx, caller }) {
    const team = caller.acting;
    // Rates over the reputation window (config reputation.windowDays), the figures platform suspension uses.
    const summary = await ctx.core.summaries.of(team);
    const body: Record<string, unknown> = {
      account: {
        id: team.id,
        status: team.status,
        plan_type: team.planType,
        credit_balance: summary.balance,
        credits_shared: team.creditsShared,
        limit_per_second: team.limitPerSecond,
        backend_region: team.backendRegion,
        bounce_rate: summary.bounceRate,
        complaint_rate: summary.complaintRate,
        ...(team.suspension ? { suspension: suspensionBody(team.suspension) } : {}),
      },
      key: {
        id: caller.key.id,
        title: caller.key.title,
        type: 'admin',
        acting_on: team.id,
        owned_by: caller.owner.id,
        scopes: caller.key.scopes,
      },
    };
    if (allows(caller.key.scopes, 'domains:read')) {
      body.domains = (await ctx.core.domains.all(team)).map((d) => domainListItem(d, team));
    }
    return { body };
  },
});

export const infoRoutes: AnyRoute[] = [info];
