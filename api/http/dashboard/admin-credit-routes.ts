// The platform's credits and figures for operators (tern/v2 /admin/…): GET /admin/stats, GET/POST /admin/credits
// (every grant and adjustment; a grant or removal with a reason, recorded in the audit log), GET
// /admin/credits/summary, and POST /admin/tenants/{id}/send-low-credit-email. Rules are the core's
// (core/admin/credits.ts, core/admin/platform-statistics.ts); this file translates.
import { Type } from '@sinclair/typebox';
import { CREDIT_ENTRY_KINDS } from '../../../shared/domain/credits.js';
import { MAX_CREDITS_MOVED } from '../../../shared/core/credits.js';
import type { PlatformStats } from '../../../shared/core/admin/platform-statistics.js';
import type { CreditSummary } from '../../../shared/core/admin/credits.js';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { invalidParam, valueOf } from '../../pipeline/refusal-errors.js';
import { creditEntryView } from './billing-routes.js';

type Route = DashboardRoute<DashboardCaller>;

const summaryView = (s: CreditSummary) => ({
  granted: s.granted,
  purchased: s.purchased,
  used: s.used,
  refunded: s.refunded,
  removed: s.removed,
  outstanding: s.outstanding,
});

const statsView = (s: PlatformStats) => ({
  window_days: s.windowDays,
  tenants: {
    accounts: s.teamCounts.accounts,
    teams: s.teamCounts.teams,
    suspended_accounts: s.teamCounts.suspendedAccounts,
    suspended_teams: s.teamCounts.suspendedTeams,
  },
  messages: s.messages,
  series: s.series,
  queue_depth: s.queueDepth,
  bounce_rate: s.bounceRate,
  complaint_rate: s.complaintRate,
  credits: summaryView(s.credits),
});

const stats: Route = {
  namespace: 'tern/v2',
  path: '/admin/stats',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "The platform's totals and daily series (operators): tenants, recipients by status (the field messages), queue depth, bounce and complaint rates, credits",
      args: Type.Object({
        days: Type.Integer({ description: 'The window: this many UTC days, today included.', default: 30, minimum: 1, maximum: 366 }),
      }),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: statsView(await ctx.core.platformStatistics.stats(params.days)) };
      },
    }),
  ],
};

const credits: Route = {
  namespace: 'tern/v2',
  path: '/admin/credits',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Every grant, purchase, adjustment and expiry across tenants, newest first (operators); any other type when asked',
      args: Type.Object({
        ...collectionArgs,
        account_id: Type.Optional(Type.Integer({ description: 'Only the entries of this pool (an account, or a team with credits of its own).', minimum: 1 })),
        type: Type.Optional(oneOf(CREDIT_ENTRY_KINDS, { description: 'Only entries of this type.' })),
        from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of created_at (a date means its start).', maxLength: 40 })),
        to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of created_at (a date means its end).', maxLength: 40 })),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const filter = { payerId: params.account_id, kind: params.type, from: params.from, to: params.to };
        const page = valueOf(await ctx.core.platformCredits.list(filter, corePage(params)));
        return pageReply(request, params, page.rows.map(creditEntryView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      allowBatch: true,
      rate: null,
      summary:
        'Grants credits to a tenant (a negative amount removes them, never below zero), with a reason; with a payment received outside Tern (paid_amount_minor, currency, payment_reference) the credits are a purchase and its invoice is issued. Recorded in the audit log',
      args: Type.Object({
        account_id: Type.Integer({ description: 'The pool: an account, or a team with credits of its own.', minimum: 1 }),
        amount: Type.Integer({ description: 'Credits to grant; negative removes them.', minimum: -MAX_CREDITS_MOVED, maximum: MAX_CREDITS_MOVED }),
        reason: Type.String({ description: 'Why: one line, kept with the entry and in the audit log.', minLength: 1, maxLength: 500 }),
        paid_amount_minor: Type.Optional(Type.Integer({ description: 'What the tenant paid for them, tax included, in minor units (cents).', minimum: 0 })),
        currency: Type.Optional(Type.String({ description: 'ISO 4217 currency of the payment, e.g. EUR.', minLength: 3, maxLength: 3 })),
        payment_reference: Type.Optional(
          Type.String({ description: 'The payment’s own reference (a bank transfer id): one purchase per reference.', minLength: 1, maxLength: 100 }),
        ),
      }),
      async handle({ ctx, user, params, log }) {
        const operator = operatorOf(user).user;
        const { paid_amount_minor: paid, currency, payment_reference: reference } = params;
        if (paid === undefined && currency === undefined && reference === undefined) {
          const entry = valueOf(await ctx.core.platformCredits.adjust(operator, params.account_id, params.amount, params.reason, log));
          return { status: 201, body: creditEntryView(entry) };
        }
        if (paid === undefined || currency === undefined || reference === undefined) {
          throw invalidParam('payment_reference', 'rest_invalid_param', 'A payment needs paid_amount_minor, currency and payment_reference together.');
        }
        const payment = { amountMinor: paid, currency, reference };
        const bought = valueOf(await ctx.core.platformCredits.recordPayment(operator, params.account_id, params.amount, payment, params.reason, log));
        return { status: 201, body: { ...creditEntryView(bought.entry), invoice: { id: bought.invoice.id, number: bought.invoice.number } } };
      },
    }),
  ],
};

const creditSummary: Route = {
  namespace: 'tern/v2',
  path: '/admin/credits/summary',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'Credits granted, purchased, used (sent less refunded), removed, and outstanding across the platform (operators)',
      args: Type.Object({}),
      async handle({ ctx, user }) {
        operatorOf(user);
        return { body: summaryView(await ctx.core.platformCredits.summary()) };
      },
    }),
  ],
};

const lowCreditEmail: Route = {
  namespace: 'tern/v2',
  path: '/admin/tenants/{id}/send-low-credit-email',
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      allowBatch: true,
      rate: null,
      summary: "Mails the owners of a tenant's account its low-balance message now, whatever the balance (operators); recorded in the audit log",
      args: Type.Object({ id: Type.Integer({ description: 'The tenant: an account or team id.', minimum: 1 }) }),
      async handle({ ctx, user, params, log }) {
        const sent = valueOf(await ctx.core.platformCredits.sendLowCreditEmail(operatorOf(user).user, params.id, log));
        return { status: 202, body: { sent_to: sent.sentTo, balance: sent.balance } };
      },
    }),
  ],
};

export const adminCreditRoutes: readonly Route[] = [stats, credits, creditSummary, lowCreditEmail];
