// The contract of the billing repository: an account's billing info saved and replaced; invoices issued once
// per payment (a retried issue returns the first), numbered in one gap-free sequence across accounts, read only
// by their account, listed newest first, and revised under the same number with the next revision.
import { accountOf, at, check, type ContractCheck } from './fixtures.js';
import type { BillingInfo } from '../../../shared/domain/billing.js';
import type { InvoiceDraft } from '../../../shared/store/billing.js';

const info = (name: string, fields: Partial<BillingInfo> = {}): BillingInfo => ({
  name,
  addressLines: ['1 Rue de la Paix', 'Bâtiment B'],
  postalCode: '75002',
  city: 'Paris',
  region: '',
  country: 'FR',
  taxId: 'FR40303265045',
  invoiceEmail: null,
  ...fields,
});

const draft = (accountId: number, reference: string, buyer = info('Buyer')): InvoiceDraft => ({
  accountId,
  paymentReference: reference,
  seller: info('Tern SAS'),
  buyer,
  lines: [{ description: '10,000 credits', quantity: 10_000, unitAmountMinor: 0.125, amountMinor: 1250 }],
  currency: 'EUR',
  subtotalMinor: 1250,
  taxRatePercent: 20,
  taxMinor: 250,
  totalMinor: 1500,
  taxNote: '',
  issuedAt: at(1),
});

export const billingChecks: ContractCheck[] = [
  check("an account's billing info is saved, replaced, and read back as given", async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    t.equal(await store.billing.billingInfo(account.id), undefined);
    t.same(await store.billing.saveBillingInfo(account.id, info('Ada SARL')), info('Ada SARL'));
    const changed = info('Ada SAS', { addressLines: ['2 Rue'], taxId: null, invoiceEmail: 'billing@ada.test', region: 'IDF' });
    t.same(await store.billing.saveBillingInfo(account.id, changed), changed);
    t.same(await store.billing.billingInfo(account.id), changed);
    t.equal(await store.billing.billingInfo(other.id), undefined);
  }),

  check('invoices are issued once per payment, numbered in one sequence across accounts, and read only by their account', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const first = await store.billing.issueInvoice(draft(ada.id, 'pi_1'), 'TERN-');
    t.same(first, { ...draft(ada.id, 'pi_1'), id: first.id, number: 'TERN-000001', revision: 1, revisedAt: null });
    const retried = await store.billing.issueInvoice(draft(ada.id, 'pi_1', info('Someone else')), 'TERN-');
    t.same(retried, first, 'a retried issue returns the invoice already issued');
    const second = await store.billing.issueInvoice(draft(bob.id, 'pi_2'), 'TERN-');
    const third = await store.billing.issueInvoice(draft(ada.id, 'pi_3'), 'TERN-');
    t.same([second.number, third.number], ['TERN-000002', 'TERN-000003'], 'no gap, one sequence for the platform');
    t.same(await store.billing.invoice(second.id), second);
    t.same(await store.billing.invoice(second.id, bob.id), second);
    t.equal(await store.billing.invoice(second.id, ada.id), undefined, "not another account's");
    t.equal(await store.billing.invoice(third.id + 100), undefined);
    t.same(await store.billing.invoices(ada.id, { page: 1, perPage: 10 }), { rows: [third, first], total: 2 }, 'newest first');
    t.same(await store.billing.invoices(ada.id, { page: 2, perPage: 1 }), { rows: [first], total: 2 });
    t.same(await store.billing.invoices(bob.id, { page: 1, perPage: 10 }), { rows: [second], total: 1 });
  }),

  check('of invoices issued at once, each has a number of its own', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const issued = await Promise.all(['pi_a', 'pi_b', 'pi_c', 'pi_d'].map((ref) => store.billing.issueInvoice(draft(ada.id, ref), 'INV-')));
    t.same(issued.map((i) => i.number).sort(), ['INV-000001', 'INV-000002', 'INV-000003', 'INV-000004']);
  }),

  check('of issues of one payment made at once (a retried webhook racing the first), one invoice is issued and every issue returns it', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const issued = await Promise.all([1, 2, 3, 4].map(() => store.billing.issueInvoice(draft(ada.id, 'pi_same'), 'INV-')));
    t.same(new Set(issued.map((i) => i.id)).size, 1, 'one invoice');
    t.same(issued[0]?.number, 'INV-000001');
    t.equal((await store.billing.issueInvoice(draft(ada.id, 'pi_next'), 'INV-')).number, 'INV-000002', 'and no number lost');
  }),

  check('a revision keeps the number, changes only the buyer, counts up, and is refused for another account', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const issued = await store.billing.issueInvoice(draft(ada.id, 'pi_1'), 'TERN-');
    const corrected = info('Ada SAS', { taxId: 'FR00000000000' });
    t.equal(await store.billing.reviseInvoice(issued.id, bob.id, corrected, at(2)), undefined);
    t.equal(await store.billing.reviseInvoice(issued.id + 100, ada.id, corrected, at(2)), undefined);
    const revised = await store.billing.reviseInvoice(issued.id, ada.id, corrected, at(2));
    t.same(revised, { ...issued, buyer: corrected, revision: 2, revisedAt: at(2) });
    const again = await store.billing.reviseInvoice(issued.id, ada.id, info('Ada SA'), at(3));
    t.match(again, { number: 'TERN-000001', revision: 3, revisedAt: at(3), issuedAt: at(1), buyer: { name: 'Ada SA' } });
    t.same(await store.billing.invoice(issued.id, ada.id), again, 'the last revision is the invoice');
    t.same(await store.billing.issueInvoice(draft(ada.id, 'pi_1'), 'TERN-'), again, 'a retried issue returns it as revised');
  }),
];
