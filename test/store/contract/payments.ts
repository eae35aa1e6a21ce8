// The contract of the payments repository: an account's customer at the provider (the first one saved stays)
// with its saved card set and removed, and payments of credits found by id or by the provider's intent, their
// state and failure recorded as the provider answers.
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { SavedCard } from '../../../shared/domain/payment.js';

const CARD: SavedCard = { paymentMethodId: 'pm_1', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };

export const paymentChecks: ContractCheck[] = [
  check('an account has one customer at the provider, the first saved; its card is set, replaced and removed', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    t.equal(await store.payments.customer(account.id), undefined);
    await store.payments.saveCustomer(account.id, 'cus_first');
    await store.payments.saveCustomer(account.id, 'cus_second');
    t.same(await store.payments.customer(account.id), { customerId: 'cus_first', card: null }, 'the first customer stays');
    await store.payments.setCard(account.id, CARD);
    t.same(await store.payments.customer(account.id), { customerId: 'cus_first', card: CARD });
    const next = { ...CARD, paymentMethodId: 'pm_2', brand: 'mastercard', last4: '4444', expMonth: 1 };
    await store.payments.setCard(account.id, next);
    t.same((await store.payments.customer(account.id))?.card, next);
    t.equal(await store.payments.customer(other.id), undefined, "another account's stays unknown");
    await store.payments.setCard(account.id, null);
    t.same(await store.payments.customer(account.id), { customerId: 'cus_first', card: null });
  }),

  check("a payment is found by its id, then by the provider's intent once known; updates record the state and the failure", async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const created = await store.payments.create({ accountId: account.id, credits: 5000, amountMinor: 1250, currency: 'EUR', state: 'processing' });
    t.match(created, { accountId: account.id, intentId: null, credits: 5000, amountMinor: 1250, currency: 'EUR', state: 'processing', failureReason: null });
    t.ok(created.createdAt && created.updatedAt);
    t.same(await store.payments.get(created.id), created);
    t.equal(await store.payments.get(created.id + 1000), undefined);
    t.equal(await store.payments.byIntent('pi_1'), undefined);

    const waiting = await store.payments.update(created.id, { intentId: 'pi_1', state: 'requires_action', failureReason: null });
    t.match(waiting, { id: created.id, intentId: 'pi_1', state: 'requires_action' });
    t.same(await store.payments.byIntent('pi_1'), waiting);
    const failed = await store.payments.update(created.id, { state: 'failed', failureReason: 'Your card was declined.' });
    t.match(failed, { intentId: 'pi_1', state: 'failed', failureReason: 'Your card was declined.' }, 'the intent stays when none is given');
    const paid = await store.payments.update(created.id, { state: 'succeeded', failureReason: null });
    t.match(paid, { state: 'succeeded', failureReason: null });
    t.same(await store.payments.get(created.id), paid);
    t.equal(await store.payments.update(created.id + 1000, { state: 'failed', failureReason: 'x' }), undefined, 'no such payment');

    const second = await store.payments.create({ accountId: account.id, credits: 1, amountMinor: 1, currency: 'USD', state: 'processing' });
    t.not(second.id, created.id);
    t.equal((await store.payments.byIntent('pi_1'))?.id, created.id);
  }),
];
