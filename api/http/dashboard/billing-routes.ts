// The mailer's billing routes, for the account's owner: GET /api/account/billing (the balance that pays for the
// team acted on, and each child team's), GET /api/account/billing/transactions (that payer's ledger, newest first)
// and POST /api/account/billing/transfer-credits (credits moved to a child team and back). Rules are the core's
// (core/credits.ts); this file translates.
import { Type } from '@sinclair/typebox';
import type { CreditEntry } from '../../../shared/domain/credits.js';
import { CREDIT_ENTRY_KINDS } from '../../../shared/domain/credits.js';
import { MAX_CREDITS_MOVED } from '../../../shared/core/credits.js';
import { endpoint, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { cardView } from './payment-routes.js';

type Route = DashboardRoute<DashboardCaller>;

/** A ledger entry as the dashboard lists it. */
export const creditEntryView = (e: CreditEntry) => ({
  id: e.id,
  pool_id: e.payerId,
  type: e.kind,
  amount: e.amount,
  balance_after: e.balanceAfter,
  actor: { type: e.actor.kind, id: e.actor.id },
  reference: e.reference,
  reason: e.reason,
  created_at: e.createdAt,
});

const billing: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'owner',
      summary: "The balance that pays for the team acted on, its plan, each child team's balance, and how the platform takes payments",
      args: Type.Object({}),
      async handle({ ctx, user }) {
        const { acting } = signedIn(user);
        const [standing, card] = await Promise.all([ctx.core.credits.standing(acting), ctx.core.payments.card(acting)]);
        return {
          body: {
            balance: standing.balance,
            pool_id: standing.payerId,
            credits_shared: standing.creditsShared,
            plan: acting.planType,
            payment_provider: ctx.core.payments.providerName,
            publishable_key: ctx.core.payments.publishableKey,
            card: card && cardView(card),
            auto_recharge: { enabled: false, threshold: null, credits: null },
            teams: standing.teams.map(({ team, balance }) => ({ id: team.id, name: team.name, credits_shared: team.creditsShared, balance })),
          },
        };
      },
    }),
  ],
};

const transactions: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing/transactions',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'owner',
      summary: 'The ledger of the balance that pays for the team acted on, newest first, each entry with who made it and the balance after it',
      args: Type.Object({
        ...collectionArgs,
        type: Type.Optional(oneOf(CREDIT_ENTRY_KINDS, { description: 'Only entries of this type.' })),
        from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of created_at (a date means its start).', maxLength: 40 })),
        to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of created_at (a date means its end).', maxLength: 40 })),
      }),
      async handle({ ctx, user, params, request }) {
        const query = { page: params.page, perPage: params.per_page, kind: params.type, from: params.from, to: params.to };
        const page = valueOf(await ctx.core.credits.transactions(signedIn(user).acting, query));
        return pageReply(request, params, page.rows.map(creditEntryView), page.total);
      },
    }),
  ],
};

const transfer: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing/transfer-credits',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      allowBatch: true,
      summary: 'Moves credits from the account to one of its teams (which then pays for its own mail), or back with a negative amount',
      args: Type.Object({
        team_id: Type.Integer({ description: 'A child team of the account.', minimum: 1 }),
        amount: Type.Integer({
          description: 'Credits to move to the team; negative moves them back to the account. Never below zero either side.',
          minimum: -MAX_CREDITS_MOVED,
          maximum: MAX_CREDITS_MOVED,
        }),
      }),
      async handle({ ctx, user, params, log }) {
        const caller = signedIn(user);
        const actor = { kind: 'user', id: String(caller.user.id) } as const;
        const moved = valueOf(await ctx.core.credits.transfer(caller.acting, { teamId: params.team_id, amount: params.amount }, actor, log));
        return { body: { account_balance: moved.accountBalance, team: { id: moved.team.id, balance: moved.team.balance, credits_shared: moved.team.creditsShared } } };
      },
    }),
  ],
};

export const billingRoutes: readonly Route[] = [billing, transactions, transfer];
