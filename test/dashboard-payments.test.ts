// Card payments over real HTTP with real Redis and SQLite, the real `stripe` client pointed at a local double of
// Stripe's API: a card saved from a confirmation token, charged off-session, the signed webhook granting the
// credits once even when it comes twice (and the invoice issued), a declined card and one that needs
// authentication answered clearly with nothing granted, a bad signature refused, and who may do what.
import t, { type Test } from 'tap';
import Stripe from 'stripe';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startStripeDouble, TOKENS, type StripeDouble } from './helpers/stripe-double.js';

const WEBHOOK_SECRET = 'whsec_tern_test';
const BILLING_BASE = {
  lowBalanceThreshold: 0,
  lowBalanceCheckS: 60,
  currency: 'EUR',
  pricePerThousandCreditsMinor: 100,
  taxRatePercent: 0,
  reverseChargeEu: true,
  invoiceNumberPrefix: 'CARD-',
  seller: { name: 'Tern', addressLines: [], postalCode: '', city: '', region: '', country: 'FR', taxId: null, invoiceEmail: null },
};

let stripe: StripeDouble;
let h: Harness;
let offline: Harness;
t.before(async () => {
  stripe = await startStripeDouble();
  h = await startHarness({
    overrides: {
      billing: {
        ...BILLING_BASE,
        provider: 'stripe',
        stripe: { secretKey: 'sk_test_tern', webhookSecret: WEBHOOK_SECRET, publishableKey: 'pk_test_tern', apiBaseUrl: stripe.url },
      },
    },
  });
  offline = await startHarness();
});
t.teardown(async () => {
  await h.close();
  await offline.close();
  await stripe.close();
});

const BILLING = '/api/tern/v2/api/account/billing';
const SAVE = `${BILLING}/save-confirmation-payment-token`;
const VERIFY = `${BILLING}/verify-payment`;
const CHARGE = `${BILLING}/charge-saved-card`;
const DELETE = `${BILLING}/delete-card`;
const WEBHOOK = '/api/tern/v2/billing/stripe-webhook';
const signer = new Stripe('sk_test_signer');

async function ownerOn(harness: Harness): Promise<{ id: number; owner: SignedIn }> {
  const { id } = await harness.account({ credits: 0 });
  return { id, owner: await logIn(harness, await userOn(harness, id, 'owner')) };
}

/** Delivers a Stripe event for a PaymentIntent of the double, signed as Stripe signs it (or with another secret). */
async function deliver(type: string, intentId: string, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({
    id: `evt_${intentId}_${type}`,
    object: 'event',
    type,
    api_version: '2025-01-27',
    created: 1,
    data: { object: stripe.paymentIntents.get(intentId) },
  });
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret });
  return h.raw('POST', WEBHOOK, { headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
}

async function balanced(t: Test, id: number, expected: number): Promise<void> {
  const { balance, sumOfEntries } = await h.rt.store.credits.reconcile(id);
  t.same([balance, sumOfEntries], [expected, expected], `balance ${expected}, the sum of its entries`);
}

t.test('a saved card is charged, and the webhook grants the credits once even when it comes twice', async (t) => {
  const { id, owner } = await ownerOn(h);
  const saved = await h.request('POST', SAVE, { ...withSession(owner), body: { confirmation_token: TOKENS.visa } });
  t.equal(saved.status, 200, saved.text);
  t.match(saved.body, { intent_id: /^seti_/, status: 'succeeded', card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 } });
  t.match((await h.request('GET', BILLING, withSession(owner))).body, { payment_provider: 'stripe', publishable_key: 'pk_test_tern', card: { last4: '4242' } });

  const charged = await h.request('POST', CHARGE, { ...withSession(owner), body: { credits: 5000 } });
  t.equal(charged.status, 202, charged.text);
  t.match(charged.body, { credits: 5000, amount_minor: 500, currency: 'EUR', status: 'succeeded', intent_id: /^pi_/ });
  await balanced(t, id, 0); // not before the webhook
  const intentId = (charged.body as { intent_id: string }).intent_id;
  t.match(stripe.paymentIntents.get(intentId), {
    amount: 500,
    currency: 'eur',
    metadata: { tern_payment_id: String((charged.body as { payment_id: number }).payment_id) },
  });

  t.equal((await deliver('payment_intent.succeeded', intentId)).status, 200);
  await balanced(t, id, 5000);
  t.equal((await deliver('payment_intent.succeeded', intentId)).status, 200, 'the repeat is acknowledged');
  await balanced(t, id, 5000);
  const purchases = await h.request('GET', `${BILLING}/transactions?type=purchase`, withSession(owner));
  t.match(purchases.body, [{ type: 'purchase', amount: 5000, reference: intentId, actor: { type: 'payment', id: intentId } }]);
  t.equal((purchases.body as unknown[]).length, 1, 'one purchase entry');
  const invoices = await h.request('GET', `${BILLING}/invoices`, withSession(owner));
  t.match(invoices.body, [{ payment_reference: intentId, total_minor: 500, number: /^CARD-/ }]);
  t.equal((invoices.body as unknown[]).length, 1, 'one invoice');
  const verified = await h.request('POST', VERIFY, { ...withSession(owner), body: { intent_id: intentId } });
  t.match(verified.body, { intent_id: intentId, status: 'succeeded' });
});

t.test('a declined card and one that needs authentication answer clearly and grant nothing', async (t) => {
  const declinedSave = await ownerOn(h);
  const refused = await h.request('POST', SAVE, { ...withSession(declinedSave.owner), body: { confirmation_token: TOKENS.declined } });
  t.equal(refused.status, 402);
  t.match(refused.body, { code: 'rest_payment_failed', message: 'Your card was declined.' });
  t.match((await h.request('GET', BILLING, withSession(declinedSave.owner))).body, { card: null });

  const declines = await ownerOn(h);
  await h.request('POST', SAVE, { ...withSession(declines.owner), body: { confirmation_token: TOKENS.declinesLater } });
  const declined = await h.request('POST', CHARGE, { ...withSession(declines.owner), body: { credits: 1000 } });
  t.equal(declined.status, 402);
  t.match(declined.body, { code: 'rest_payment_failed', message: 'Your card was declined.' });
  await balanced(t, declines.id, 0);

  const auth = await ownerOn(h);
  await h.request('POST', SAVE, { ...withSession(auth.owner), body: { confirmation_token: TOKENS.authLater } });
  const needsAuth = await h.request('POST', CHARGE, { ...withSession(auth.owner), body: { credits: 1000 } });
  t.equal(needsAuth.status, 202, needsAuth.text);
  t.match(needsAuth.body, { status: 'requires_action', next_action: 'confirm_card_payment', client_secret: /^pi_secret_/ });
  await balanced(t, auth.id, 0);
  const authIntent = (needsAuth.body as { intent_id: string }).intent_id;
  t.match(
    (await h.request('POST', VERIFY, { ...withSession(auth.owner), body: { intent_id: authIntent } })).body,
    { status: 'requires_action', next_action: 'confirm_card_payment' },
    'verify answers as the charge did',
  );
  const failedEvent = await deliver('payment_intent.payment_failed', authIntent);
  t.equal(failedEvent.status, 200);
  await balanced(t, auth.id, 0);

  const threeDs = await ownerOn(h);
  const pending = await h.request('POST', SAVE, { ...withSession(threeDs.owner), body: { confirmation_token: TOKENS.threeDs } });
  t.match(pending.body, { status: 'requires_action', next_action: 'use_stripe_sdk', client_secret: /^seti_secret_/ });
  const setupId = (pending.body as { intent_id: string }).intent_id;
  const state = await h.request('POST', VERIFY, { ...withSession(threeDs.owner), body: { intent_id: setupId } });
  t.match(state.body, { status: 'requires_action' });
  t.match((await h.request('GET', BILLING, withSession(threeDs.owner))).body, { card: null }, 'not saved before the authentication');
  stripe.authenticate(setupId);
  t.match((await h.request('POST', VERIFY, { ...withSession(threeDs.owner), body: { intent_id: setupId } })).body, { status: 'succeeded', card: { last4: '3220' } });
  t.match((await h.request('GET', BILLING, withSession(threeDs.owner))).body, { card: { last4: '3220' } }, 'saved once authenticated');
  const { customerId } = (await h.rt.store.payments.customer(threeDs.id))!;
  t.match(stripe.customer(customerId), { invoice_settings: { default_payment_method: 'pm_card_3ds' } }, 'and the default at Stripe');
});

t.test('a webhook with a bad signature is refused and changes nothing', async (t) => {
  const { id, owner } = await ownerOn(h);
  await h.request('POST', SAVE, { ...withSession(owner), body: { confirmation_token: TOKENS.visa } });
  const charged = await h.request('POST', CHARGE, { ...withSession(owner), body: { credits: 2000 } });
  const forged = await deliver('payment_intent.succeeded', (charged.body as { intent_id: string }).intent_id, 'whsec_someone_else');
  t.equal(forged.status, 400);
  t.match(forged.body, { code: 'rest_invalid_signature' });
  await balanced(t, id, 0);
});

t.test('the card is removed; charging without one, another account’s intent and a bad amount are refused', async (t) => {
  const { owner } = await ownerOn(h);
  t.match((await h.request('POST', CHARGE, { ...withSession(owner), body: { credits: 1000 } })).body, { code: 'rest_no_saved_card' });
  await h.request('POST', SAVE, { ...withSession(owner), body: { confirmation_token: TOKENS.visa } });
  const small = await h.request('POST', CHARGE, { ...withSession(owner), body: { credits: 10 } });
  t.match(small.body, { code: 'rest_invalid_param', data: { params: { credits: /from 500/ } } });
  const other = await ownerOn(h);
  await h.request('POST', SAVE, { ...withSession(other.owner), body: { confirmation_token: TOKENS.visa } });
  const theirs = await h.request('POST', CHARGE, { ...withSession(other.owner), body: { credits: 1000 } });
  const peek = await h.request('POST', VERIFY, { ...withSession(owner), body: { intent_id: (theirs.body as { intent_id: string }).intent_id } });
  t.equal(peek.status, 404, 'another account’s intent');
  const detachesBefore = stripe.requests.filter((r) => r.path.endsWith('/detach')).length;
  await h.request('POST', SAVE, { ...withSession(owner), body: { confirmation_token: TOKENS.authLater } });
  t.equal(stripe.requests.filter((r) => r.path === '/v1/payment_methods/pm_card_visa/detach').length, detachesBefore + 1, 'a new card detaches the one it replaces');
  t.match((await h.request('GET', BILLING, withSession(owner))).body, { card: { last4: '3155' } });
  const removed = await h.request('POST', DELETE, withSession(owner));
  t.same(removed.body, { deleted: true });
  t.ok(
    stripe.requests.some((r) => r.method === 'POST' && /^\/v1\/payment_methods\/pm_card_visa\/detach$/.test(r.path)),
    'detached at Stripe',
  );
  t.match((await h.request('GET', BILLING, withSession(owner))).body, { card: null });
  t.match((await h.request('POST', DELETE, withSession(owner))).body, { code: 'rest_no_saved_card' });
});

t.test('only the owner pays: admins and viewers 403; an offline platform answers every card route rest_payments_offline', async (t) => {
  const { id } = await ownerOn(h);
  for (const role of ['admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, id, role));
    t.equal((await h.request('POST', CHARGE, { ...withSession(s), body: { credits: 1000 } })).status, 403, `${role} charge`);
    t.equal((await h.request('POST', SAVE, { ...withSession(s), body: { confirmation_token: TOKENS.visa } })).status, 403, `${role} save`);
  }
  const off = await ownerOn(offline);
  for (const [path, body] of [
    [SAVE, { confirmation_token: TOKENS.visa }],
    [VERIFY, { intent_id: 'pi_123' }],
    [CHARGE, { credits: 1000 }],
    [DELETE, undefined],
  ] as const) {
    const res = await offline.request('POST', path, { ...withSession(off.owner), body });
    t.equal(res.status, 409, path);
    t.match(res.body, { code: 'rest_payments_offline' });
  }
  t.match((await offline.request('GET', BILLING, withSession(off.owner))).body, { payment_provider: 'offline', card: null });
});
