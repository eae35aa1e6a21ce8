// The platform's credits (/admin/credits): the summary, every grant, purchase, adjustment and expiry across
// teams (filters, paging), granting or removing credits with a reason, and recording a payment received
// outside Tern (the credits as a purchase, and its invoice). The same core use cases as the REST routes
// (core.platformCredits); each change is in the audit log with its reason.
import { CREDIT_ENTRY_KINDS, type CreditEntry } from '../../../shared/domain/credits.js';
import type { CreditSummary } from '../../../shared/core/admin/credits.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { pageError, pageErrorFor, valueOrPageError, type PageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt, formError, noticeOf, table, when } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { PageRequest } from '../request.js';
import type { OperatorViewer } from '../viewer.js';
import { namedTeam } from './shared.js';
import { currencyDigits, minorUnitsOf } from '../../../shared/money.js';
import { choiceQuery, choicesOf, filterForm, idQuery, listPage, listPager, textQuery } from '../lists.js';

const PATH = '/admin/credits';

const NOTICES = {
  granted: 'The credits are granted.',
  removed: 'The credits are removed.',
  payment_recorded: 'The payment is recorded: its credits are added and its invoice is issued.',
};

export const actorText = (e: CreditEntry): string => (e.actor.id === null ? e.actor.kind : `${e.actor.kind} ${e.actor.id}`);

function entryRow(e: CreditEntry, names: ReadonlyMap<number, string>): Html {
  return html`<tr>
    <th scope="row">${when(e.createdAt)}</th>
    <td>${namedTeam(e.payerId, names)}</td>
    <td>${e.kind}</td>
    <td class="number">${e.amount}</td>
    <td class="number">${e.balanceAfter}</td>
    <td>${actorText(e)}</td>
    <td>${e.reference ?? '—'}</td>
    <td>${e.reason}</td>
  </tr>`;
}

function summaryCards(s: CreditSummary): Html {
  const card = (id: string, n: number, label: string) => html`<div class="card"><span class="figure" id="${id}">${n}</span> ${label}</div>`;
  return html`<div class="cards">
    ${card('granted', s.granted, 'granted')} ${card('purchased', s.purchased, 'purchased')} ${card('used', s.used, 'used')} ${card('removed', s.removed, 'removed')}
    ${card('outstanding', s.outstanding, 'outstanding')}
  </div>`;
}

/** What the forms were sent with, written back when one is refused. */
type Sent = Readonly<Record<string, string>>;

const field = (id: string, name: string, label: string, sent: Sent, extra: Html = html``, type = 'text'): Html =>
  html`<label for="${id}">${label}</label> <input type="${type}" id="${id}" name="${name}" value="${sent[name] ?? ''}" required ${extra} />`;

function grantForm(v: OperatorViewer, r: PageRequest, sent: Sent): Html {
  const values = { account_id: r.query.account_id ?? '', ...sent };
  return html`<form method="post" action="${PATH}" data-confirm="Change this tenant's credits?">
    ${formGuard(v)} ${field('grant-account', 'account_id', 'Account (its id, or a team with credits of its own)', values, html`inputmode="numeric" pattern="[0-9]+"`)}
    ${field('grant-amount', 'amount', 'Credits (negative to remove them)', values, html`inputmode="numeric" pattern="-?[0-9]+"`)}
    ${field('grant-reason', 'reason', 'Why (kept with the entry and in the audit log)', values, html`maxlength="500"`)}
    <button type="submit" class="primary" id="grant">Grant or remove credits</button>
  </form>`;
}

function paymentForm(v: OperatorViewer, r: PageRequest, sent: Sent): Html {
  const values = { account_id: r.query.account_id ?? '', currency: 'EUR', ...sent };
  return html`<form method="post" action="${PATH}/payment" data-confirm="Record this payment and issue its invoice?">
    ${formGuard(v)} ${field('payment-account', 'account_id', 'Account (its id)', values, html`inputmode="numeric" pattern="[0-9]+"`)}
    ${field('payment-credits', 'amount', 'Credits bought', values, html`inputmode="numeric" pattern="[0-9]+"`)}
    ${field('payment-paid', 'paid_amount', 'Amount paid, tax included, in the currency (e.g. 49.90)', values, html`inputmode="decimal"`)}
    ${field('payment-currency', 'currency', 'Currency (ISO 4217, e.g. EUR)', values, html`maxlength="3"`)}
    ${field('payment-reference', 'payment_reference', 'Payment reference (the bank transfer’s)', values, html`maxlength="100"`)}
    ${field('payment-reason', 'reason', 'Why (kept in the audit log)', values, html`maxlength="500"`)}
    <button type="submit" class="primary" id="record-payment">Record the payment</button>
  </form>`;
}

async function creditsAnswer(
  ctx: AppContext,
  call: PageCall<OperatorViewer>,
  refused?: { error: PageError; form: 'grant' | 'payment'; sent: Sent },
): Promise<PageAnswer> {
  const { r, viewer } = call;
  const filter = {
    payerId: idQuery(r, 'account_id', 'The account'),
    kind: choiceQuery(r, 'type', 'Type', CREDIT_ENTRY_KINDS),
    from: textQuery(r, 'from', 'From', 40),
    to: textQuery(r, 'to', 'To', 40),
  };
  const page = listPage(ctx, r);
  const [found, summary] = await Promise.all([ctx.core.platformCredits.list(filter, page), ctx.core.platformCredits.summary()]);
  const entries = valueOrPageError(found);
  const names = await ctx.core.adminTeams.names(entries.rows.map((e) => e.payerId));
  const errorOf = (f: 'grant' | 'payment') => (refused?.form === f ? formError(refused.error.message) : undefined);
  const sentTo = (f: 'grant' | 'payment') => (refused?.form === f ? refused.sent : {});
  const filters = filterForm(r, PATH, [
    { name: 'account_id', label: 'Account (id)', type: 'number' },
    { name: 'type', label: 'Type', choices: choicesOf(CREDIT_ENTRY_KINDS) },
    { name: 'from', label: 'From', type: 'date' },
    { name: 'to', label: 'To', type: 'date' },
  ]);
  const head = ['When', 'Pool', 'Type', 'Credits', 'Balance after', 'By', 'Reference', 'Reason'];
  const body = html`${noticeOf(r, NOTICES)} ${summaryCards(summary)}
    <h2>Grant or remove credits</h2>
    ${errorOf('grant')} ${grantForm(viewer, r, sentTo('grant'))}
    <h2>Record a payment received outside Tern</h2>
    <p class="hint">A bank transfer, say: its credits are a purchase, once per payment reference, and its invoice is issued.</p>
    ${errorOf('payment')} ${paymentForm(viewer, r, sentTo('payment'))}
    <h2>Entries</h2>
    ${filters}
    ${table(
      'Grants, purchases, adjustments and expiries, newest first',
      head,
      entries.rows.map((e) => entryRow(e, names)),
      'No entry matches these filters.',
    )}
    ${listPager(r, page, entries.total)}`;
  return { kind: 'page', status: refused?.error.status, title: 'Credits', body };
}

const credits = (call: PageCall<OperatorViewer>): Promise<PageReply> => creditsAnswer(call.ctx, call);

/** A whole number typed in a form (NaN otherwise: the core refuses it with its own words). */
const wholeOf = (form: URLSearchParams, name: string): number => {
  const text = (form.get(name) ?? '').trim();
  return /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
};

/**
 * The amount paid as typed in the currency's units ("49.90"), in minor units exactly (4990); or what is wrong with
 * it, in the form's words. A currency that is none is left to the core to refuse (its amount is then 0).
 */
function paidOf(text: string, currency: string): number | string {
  const digits = currencyDigits(currency);
  if (digits === undefined) return 0;
  const minor = minorUnitsOf(text, digits);
  if (minor !== undefined) return minor;
  const example = digits === 0 ? '4990' : `49.${'9'.padEnd(digits, '0')}`;
  return `Amount paid must be a number in ${currency} such as ${example}: digits${digits === 0 ? ', without decimals' : `, and at most ${digits} decimals after a point`}.`;
}

const sentOf = (form: URLSearchParams, names: readonly string[]): Sent => Object.fromEntries(names.map((n) => [n, form.get(n) ?? '']));

const NO_ACCOUNT = (): PageError => pageError('invalid_request', 'The account must be given by its id, a number.');

const back = (payerId: number, code: string) => doneAt(`${PATH}?account_id=${payerId}`, code);

async function grant(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const payerId = wholeOf(form, 'account_id');
  const amount = wholeOf(form, 'amount');
  const sent = sentOf(form, ['account_id', 'amount', 'reason']);
  if (Number.isNaN(payerId)) return creditsAnswer(ctx, call, { error: NO_ACCOUNT(), form: 'grant', sent });
  const made = await ctx.core.platformCredits.adjust(viewer.user, payerId, amount, form.get('reason') ?? '', log);
  if (!made.ok) return creditsAnswer(ctx, call, { error: pageErrorFor(made.refusal), form: 'grant', sent });
  return { kind: 'redirect', status: 303, location: back(payerId, amount > 0 ? 'granted' : 'removed') };
}

async function recordPayment(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const payerId = wholeOf(form, 'account_id');
  const sent = sentOf(form, ['account_id', 'amount', 'paid_amount', 'currency', 'payment_reference', 'reason']);
  if (Number.isNaN(payerId)) return creditsAnswer(ctx, call, { error: NO_ACCOUNT(), form: 'payment', sent });
  const currency = (form.get('currency') ?? '').trim();
  const paid = paidOf((form.get('paid_amount') ?? '').trim(), currency);
  if (typeof paid === 'string') return creditsAnswer(ctx, call, { error: pageError('invalid_request', paid), form: 'payment', sent });
  const payment = { amountMinor: paid, currency, reference: (form.get('payment_reference') ?? '').trim() };
  const made = await ctx.core.platformCredits.recordPayment(viewer.user, payerId, wholeOf(form, 'amount'), payment, form.get('reason') ?? '', log);
  if (!made.ok) return creditsAnswer(ctx, call, { error: pageErrorFor(made.refusal), form: 'payment', sent });
  return { kind: 'redirect', status: 303, location: back(payerId, 'payment_recorded') };
}

export const CREDIT_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: 'Credits', handle: credits }),
  operatorPage({ method: 'POST', path: PATH, title: 'Credits', handle: grant }),
  operatorPage({ method: 'POST', path: `${PATH}/payment`, title: 'Credits', section: PATH, handle: recordPayment }),
];
