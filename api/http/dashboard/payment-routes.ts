// Card payments for the account's owner (tern/v2 /api/account/billing/…): saving a card from a Stripe.js
// confirmation token, the state of an intent, charging the saved card for credits, removing it; and the
// provider's webhook (public, its signature checked on the raw body). Rules are the core's (core/payments.ts).
import { Type } from '@sinclair/typebox';
import type { IntentOutcome, SavedCard } from '../../../shared/domain/payment.js';
import { MAX_CREDITS_MOVED } from '../../../shared/core/credits.js';
import { endpoint, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { readRawBody } from '../../pipeline/body.js';

type Route = DashboardRoute<DashboardCaller>;

/** A webhook event is a few kilobytes; this bounds what an anonymous caller can make Tern read. */
const WEBHOOK_MAX_BYTES = 512 * 1024;

export const cardView = (c: SavedCard) => ({ brand: c.brand, last4: c.last4, exp_month: c.expMonth, exp_year: c.expYear });

const intentView = (o: IntentOutcome) => ({
  intent_id: o.intentId,
  status: o.state,
  client_secret: o.clientSecret,
  next_action: o.nextAction,
  failure_reason: o.failureReason,
  card: o.card && cardView(o.card),
});

const billingPath = (tail: string): Pick<Route, 'namespace' | 'path'> => ({ namespace: 'tern/v2', path: `/api/account/billing/${tail}` });

const saveCard: Route = {
  ...billingPath('save-confirmation-payment-token'),
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary:
        'Saves a card for later charges from a Stripe.js confirmation token: succeeded (the card is the default), requires_action (what the browser must do) or a declined card',
      args: Type.Object({
        confirmation_token: Type.String({ description: 'The ConfirmationToken id (ctoken_…) Stripe.js made in the browser.', minLength: 1, maxLength: 255 }),
      }),
      async handle({ ctx, user, params, log }) {
        const caller = signedIn(user);
        return { body: intentView(valueOf(await ctx.core.payments.saveCard(caller.acting, caller.user.email, params.confirmation_token, log))) };
      },
    }),
  ],
};

const verify: Route = {
  ...billingPath('verify-payment'),
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary: "The state of one of the account's SetupIntents (seti_…) or PaymentIntents (pi_…): succeeded, processing, requires_action, or failed with the reason",
      args: Type.Object({ intent_id: Type.String({ description: 'A seti_… or pi_… id.', pattern: '^(seti|pi)_[A-Za-z0-9_]{1,250}$' }) }),
      async handle({ ctx, user, params }) {
        return { body: intentView(valueOf(await ctx.core.payments.verify(signedIn(user).acting, params.intent_id))) };
      },
    }),
  ],
};

const charge: Route = {
  ...billingPath('charge-saved-card'),
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary: 'Charges the saved card for credits, off-session; the credits come when the provider confirms the payment (its webhook), once',
      args: Type.Object({ credits: Type.Integer({ description: 'How many credits to buy.', minimum: 1, maximum: MAX_CREDITS_MOVED }) }),
      async handle({ ctx, user, params, log }) {
        const { payment, outcome } = valueOf(await ctx.core.payments.charge(signedIn(user).acting, params.credits, log));
        return {
          status: 202,
          body: { payment_id: payment.id, credits: payment.credits, amount_minor: payment.amountMinor, currency: payment.currency, ...intentView(outcome) },
        };
      },
    }),
  ],
};

const deleteCard: Route = {
  ...billingPath('delete-card'),
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary: 'Removes the saved card (detached at the provider)',
      args: Type.Object({}),
      async handle({ ctx, user, log }) {
        valueOf(await ctx.core.payments.deleteCard(signedIn(user).acting, log));
        return { body: { deleted: true } };
      },
    }),
  ],
};

const webhook: Route = {
  namespace: 'tern/v2',
  path: '/billing/stripe-webhook',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'public',
      rate: null,
      streamedBody: { contentType: 'application/json', schema: Type.Object({}, { additionalProperties: true, description: 'A Stripe event, as Stripe sends it.' }) },
      summary: "Stripe's webhook (register this URL in Stripe for payment_intent.succeeded and payment_intent.payment_failed): checked with its Stripe-Signature",
      args: Type.Object({}),
      async handle({ ctx, request, log }) {
        const raw = await readRawBody(request.stream! as AsyncIterable<Buffer>, request.headers, WEBHOOK_MAX_BYTES);
        const signature = String(request.headers['stripe-signature'] ?? '');
        const accepted = valueOf(await ctx.core.payments.webhook(raw, signature, log));
        if (!accepted) throw dashboardError('rest_invalid_signature', 'The Stripe-Signature header does not match the body.');
        return { body: { received: true } };
      },
    }),
  ],
};

export const paymentRoutes: readonly Route[] = [saveCard, verify, charge, deleteCard, webhook];
