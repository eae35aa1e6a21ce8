// Billing info and invoices over real HTTP with real Redis and SQLite: the owner's billing info (checked as a
// whole, a VAT number for its country; a refused change changes nothing), a payment received outside Tern recorded
// by an operator (a purchase in the ledger and its invoice), the invoice as a PDF whose text (pdftotext) carries
// the billing info, lines, tax and totals, a re-issue keeping the number, and who may see what; and the core's
// issue() as the payment path calls it, in-process: once per payment reference, numbers without gaps.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { Billing } from '../shared/core/billing.js';
import { GERMAN_CUSTOMER, INVOICING } from './helpers/billing-setup.js';

let h: Harness;
let operator: SignedIn;
t.before(async () => {
  h = await startHarness({
    overrides: {
      // The billing tests' invoicing platform, with invoice numbers of its own.
      billing: { ...INVOICING.billing, invoiceNumberPrefix: 'TEST-' },
    },
  });
  operator = await logIn(h, await operatorOn(h));
});
t.teardown(() => h.close());

const INFO = '/api/tern/v2/api/account/billing-info';
const INVOICES = '/api/tern/v2/api/account/billing/invoices';
const invoicePath = (id: number) => `/api/tern/v2/api/account/billing/invoice/${id}`;
let references = 0;

async function ownerOf(): Promise<{ id: number; owner: SignedIn }> {
  const { id } = await h.account({ credits: 0 });
  return { id, owner: await logIn(h, await userOn(h, id, 'owner')) };
}

async function pay(accountId: number, credits: number, paidMinor: number): Promise<{ id: number; number: string }> {
  const body = {
    account_id: accountId,
    amount: credits,
    reason: 'Bank transfer',
    paid_amount_minor: paidMinor,
    currency: 'EUR',
    payment_reference: `wire-${++references}-${process.pid}`,
  };
  const res = await h.request('POST', '/api/tern/v2/admin/credits', { ...withSession(operator), body });
  if (res.status !== 201) throw new Error(res.text);
  return (res.body as { invoice: { id: number; number: string } }).invoice;
}

/** The PDF of an invoice, fetched over HTTP, as pdftotext reads it. */
async function pdfText(t: Test, owner: SignedIn, id: number): Promise<string> {
  const res = await fetch(`${h.url}${invoicePath(id)}`, { headers: withSession(owner).headers });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/pdf');
  t.match(res.headers.get('content-disposition'), /^attachment; filename="[A-Z]+-\d{6}(-r\d+)?\.pdf"$/);
  const pdf = Buffer.from(await res.arrayBuffer());
  t.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const text = spawnSync('pdftotext', ['-layout', '-', '-'], { input: pdf });
  if (text.status !== 0) throw new Error(`pdftotext: ${String(text.stderr)}`);
  return String(text.stdout);
}

t.test('the owner sets billing info; a bad VAT number, country or missing city is refused and changes nothing', async (t) => {
  const { owner } = await ownerOf();
  t.same((await h.request('GET', INFO, withSession(owner))).body, null, 'none until set');
  const noCity = await h.request('POST', INFO, { ...withSession(owner), body: { name: 'Kunde GmbH', address_lines: ['Hauptstraße 5'], country: 'DE' } });
  t.match(noCity.body, { code: 'rest_invalid_param', data: { params: { city: String } } });
  const saved = await h.request('POST', INFO, { ...withSession(owner), body: GERMAN_CUSTOMER });
  t.equal(saved.status, 200, saved.text);
  t.same(saved.body, { ...GERMAN_CUSTOMER, region: '' });
  const badVat = await h.request('POST', INFO, { ...withSession(owner), body: { tax_id: 'DE12345', city: 'Hamburg' } });
  t.equal(badVat.status, 400);
  t.match(badVat.body, { code: 'rest_invalid_param', data: { params: { tax_id: /not a valid VAT number of DE/ } } });
  const badDigit = await h.request('POST', INFO, { ...withSession(owner), body: { tax_id: 'DE136695977' } });
  t.match(badDigit.body, { code: 'rest_invalid_param', data: { params: { tax_id: /check digits/ } } }, 'the right format with a wrong check digit');
  const otherCountry = await h.request('POST', INFO, { ...withSession(owner), body: { tax_id: 'FR40303265045' } });
  t.match(otherCountry.body, { code: 'rest_invalid_param', data: { params: { tax_id: /of DE/ } } }, "a valid VAT number of another country than the buyer's");
  const moved = await h.request('POST', INFO, { ...withSession(owner), body: { country: 'AT' } });
  t.match(moved.body, { code: 'rest_invalid_param', data: { params: { tax_id: /of AT/ } } }, 'a new country checks the tax id kept');
  const lower = await h.request('POST', INFO, { ...withSession(owner), body: { country: 'de', city: 'Hamburg' } });
  t.match(lower.body, { code: 'rest_invalid_param', data: { params: { country: String } } });
  t.same((await h.request('GET', INFO, withSession(owner))).body, { ...GERMAN_CUSTOMER, region: '' }, 'nothing of the refused changes was saved');
  const otherTax = await h.request('POST', INFO, { ...withSession(owner), body: { country: 'US', tax_id: '12-3456789', postal_code: '94105', city: 'San Francisco' } });
  t.match(otherTax.body, { country: 'US', tax_id: '12-3456789' }, 'a tax id of a country without a known VAT format is checked for its shape');
  const none = await h.request('POST', INFO, { ...withSession(owner), body: { tax_id: null } });
  t.match(none.body, { tax_id: null });
  const padded = await h.request('POST', INFO, {
    ...withSession(owner),
    body: { name: '  Kunde GmbH ', address_lines: [' Hauptstraße 5 '], country: 'DE', postal_code: '10115', city: 'Berlin', tax_id: ' de 136 695 976 ' },
  });
  t.match(padded.body, { name: 'Kunde GmbH', address_lines: ['Hauptstraße 5'], tax_id: 'de 136 695 976' }, 'trimmed, and otherwise kept as typed');
});

t.test('a recorded payment issues an invoice whose PDF carries the billing info, lines, tax and totals', async (t) => {
  const { id, owner } = await ownerOf();
  await h.request('POST', INFO, {
    ...withSession(owner),
    body: { ...GERMAN_CUSTOMER, country: 'FR', tax_id: null, postal_code: '69001', city: 'Lyon', address_lines: ['3 quai Saint-Antoine'], name: 'Client Lyon SARL' },
  });
  const invoice = await pay(id, 10_000, 1200);
  t.match(invoice.number, /^TEST-\d{6}$/);
  const list = await h.request('GET', INVOICES, withSession(owner));
  t.match(list.body, [
    {
      id: invoice.id,
      number: invoice.number,
      revision: 1,
      currency: 'EUR',
      subtotal_minor: 1000,
      tax_rate_percent: 20,
      tax_minor: 200,
      total_minor: 1200,
      lines: [{ quantity: 10_000, unit_amount_minor: 0.1, amount_minor: 1000 }],
    },
  ]);
  t.equal(list.headers.get('x-wp-total'), '1');
  const text = await pdfText(t, owner, invoice.id);
  for (const expected of [
    `Invoice ${invoice.number}`,
    'Tern Platform SAS',
    '12 rue des Postiers',
    'FR40303265045',
    'Client Lyon SARL',
    '3 quai Saint-Antoine',
    '69001 Lyon',
    '10,000 sending credits',
    '€0.001',
    'Subtotal',
    '€10.00',
    'Tax (20%)',
    '€2.00',
    'Total',
    '€12.00',
  ]) {
    t.ok(text.includes(expected), `the PDF shows ${expected}`);
  }
  const ledger = await h.request('GET', `/api/tern/v2/admin/credits?account_id=${id}&type=purchase`, withSession(operator));
  t.match(ledger.body, [{ type: 'purchase', amount: 10_000, actor: { type: 'operator' } }]);
});

t.test('an EU business in another member state is invoiced without tax, with the reverse-charge mention', async (t) => {
  const { id, owner } = await ownerOf();
  await h.request('POST', INFO, { ...withSession(owner), body: GERMAN_CUSTOMER });
  const invoice = await pay(id, 5000, 600);
  const text = await pdfText(t, owner, invoice.id);
  t.ok(text.includes('Tax (0%)'), 'no tax');
  t.ok(text.includes('DE136695976'), "the buyer's VAT number");
  t.match(text.replace(/\s+/g, ' '), /Reverse charge: VAT to be accounted for by the customer/);
});

t.test('a re-issue keeps the number, adds a revision and shows the corrected info; the same payment is never booked twice', async (t) => {
  const { id, owner } = await ownerOf();
  await h.request('POST', INFO, { ...withSession(owner), body: GERMAN_CUSTOMER });
  const invoice = await pay(id, 1000, 120);
  const revised = await h.request('POST', `${invoicePath(invoice.id)}/billing-info`, { ...withSession(owner), body: { name: 'Kunde Neu GmbH' } });
  t.equal(revised.status, 200, revised.text);
  t.match(revised.body, {
    id: invoice.id,
    number: invoice.number,
    revision: 2,
    buyer: { name: 'Kunde Neu GmbH' },
    revised_at: String,
    tax_rate_percent: 0,
    total_minor: 120,
    tax_note: /Reverse charge/,
  });
  const text = await pdfText(t, owner, invoice.id);
  t.ok(text.includes(`Invoice ${invoice.number}`));
  t.ok(text.includes('Revision 2'));
  t.ok(text.includes('Kunde Neu GmbH'));
  t.notOk(text.includes('Kunde GmbH'), 'the old name is gone from the new revision');
  const bad = await h.request('POST', `${invoicePath(invoice.id)}/billing-info`, { ...withSession(owner), body: { tax_id: 'DE1' } });
  t.equal(bad.status, 400);
  t.match((await h.request('GET', INVOICES, withSession(owner))).body, [{ revision: 2 }], 'a refused correction re-issues nothing');
  const again = await h.request('POST', '/api/tern/v2/admin/credits', {
    ...withSession(operator),
    body: { account_id: id, amount: 1000, reason: 'Bank transfer', paid_amount_minor: 120, currency: 'EUR', payment_reference: `wire-${references}-${process.pid}` },
  });
  t.match(again.body, { code: 'rest_invalid_param', data: { params: { payment_reference: /already recorded/ } } });
  t.equal((await h.rt.store.teams.get(id))!.creditBalance, 1000, 'one purchase');
  const partial = await h.request('POST', '/api/tern/v2/admin/credits', { ...withSession(operator), body: { account_id: id, amount: 5, reason: 'x', currency: 'EUR' } });
  t.match(partial.body, { code: 'rest_invalid_param', data: { params: { payment_reference: /together/ } } });
});

t.test('only the owner reaches billing info and invoices; another account’s invoice answers 404', async (t) => {
  const { id } = await ownerOf();
  const invoice = await pay(id, 1000, 120);
  for (const role of ['admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, id, role));
    t.equal((await h.request('GET', INFO, withSession(s))).status, 403, `${role} GET billing-info`);
    t.equal((await h.request('POST', INFO, { ...withSession(s), body: { name: 'x' } })).status, 403, `${role} POST billing-info`);
    t.equal((await h.request('GET', INVOICES, withSession(s))).status, 403, `${role} invoices`);
    t.equal((await h.request('GET', invoicePath(invoice.id), withSession(s))).status, 403, `${role} invoice`);
  }
  t.equal((await h.request('GET', INFO, withSession(operator))).status, 403, 'an operator is no member of the account');
  const other = await ownerOf();
  const elsewhere = await h.request('GET', invoicePath(invoice.id), withSession(other.owner));
  t.equal(elsewhere.status, 404);
  t.match(elsewhere.body, { code: 'rest_invoice_invalid_id' });
  t.equal((await h.request('POST', `${invoicePath(invoice.id)}/billing-info`, { ...withSession(other.owner), body: { name: 'Mine' } })).status, 404);
  t.equal((await h.request('GET', invoicePath(invoice.id))).status, 401);
});

t.test('issue() invoices a payment once per reference, in one sequence without gaps, and never to a second account', async (t) => {
  const billing = new Billing(h.rt);
  const { id, owner } = await ownerOf();
  const payment = { reference: `pi_${process.pid}_once`, credits: 2000, amountMinor: 240, currency: 'EUR', paidAt: '2026-03-01T10:00:00.000Z' };
  const first = await billing.issue(id, payment);
  t.match(first, { accountId: id, revision: 1, totalMinor: 240, taxMinor: 40, subtotalMinor: 200, issuedAt: payment.paidAt });
  t.match(first.buyer, { name: /^Account \d+$/, taxId: null }, 'an account without billing info is invoiced under its name');
  const again = await billing.issue(id, { ...payment, amountMinor: 999 });
  t.same(again, first, 'a second call for the same payment returns the first invoice');
  const parallel = await Promise.all(
    Array.from({ length: 6 }, (_, i) => billing.issue(id, { ...payment, reference: `pi_${process.pid}_parallel_${i}`, description: `Pack ${i}` })),
  );
  const sequence = (number: string) => Number(number.replace(/^TEST-/, ''));
  const numbers = [first, ...parallel].map((i) => sequence(i.number)).sort((a, b) => a - b);
  t.same(
    numbers,
    numbers.map((_, i) => numbers[0]! + i),
    'consecutive numbers',
  );
  await t.rejects(billing.issue((await ownerOf()).id, payment), /already invoiced to another account/);
  const list = await h.request('GET', `${INVOICES}?per_page=2&page=2`, withSession(owner));
  t.equal(list.headers.get('x-wp-total'), '7');
  t.equal(list.headers.get('x-wp-totalpages'), '4');
  const newestFirst = [first, ...parallel].map((i) => i.id).sort((a, b) => b - a);
  t.same(
    (list.body as Array<{ id: number }>).map((i) => i.id),
    newestFirst.slice(2, 4),
    'newest first, paged',
  );
});
