// The account's billing page (/billing, its owner only): the balance that pays for the team acted on, its
// ledger (filters, paging), how credits are bought (a saved card with Stripe, or the platform's grants on an
// offline platform), moving credits to a child team and back, the account's invoices as PDFs, and its billing
// info. The same core use cases as the REST billing, invoice and payment routes.
import { CREDIT_ENTRY_KINDS, type CreditEntry } from '../../../shared/domain/credits.js';
import type { BillingInfo, Invoice } from '../../../shared/domain/billing.js';
import type { SavedCard } from '../../../shared/domain/payment.js';
import { accountIdOf, type Team } from '../../../shared/domain/team.js';
import type { BillingInfoChange } from '../../../shared/core/billing.js';
import type { CreditStanding } from '../../../shared/core/credits.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageError, pageErrorFor, valueOrPageError, type FieldLabels, type PageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { doneAt, formError, formErrors, noticeOf, table, when } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';
import { choiceQuery, choicesOf, filterForm, idParam, listPage, listPager, textQuery } from '../lists.js';

const PATH = '/billing';

const NOTICES = {
  transferred: 'The credits are moved.',
  info_saved: 'Your billing info is saved; the next invoices carry it.',
};

type FormName = 'transfer' | 'info';
/** A refused form: why, and what was typed (written back). */
interface Refused {
  form: FormName;
  error: PageError;
  /** Every problem of the form, in its labels' words (when the refusal is about its fields). */
  problems?: string[];
  sent: Readonly<Record<string, string>>;
}

const money = (minor: number, currency: string): string => `${(minor / 100).toFixed(2)} ${currency}`;

function entryRow(e: CreditEntry): Html {
  return html`<tr>
    <th scope="row">${when(e.createdAt)}</th>
    <td>${e.kind}</td>
    <td class="number">${e.amount}</td>
    <td class="number">${e.balanceAfter}</td>
    <td>${e.reason}</td>
  </tr>`;
}

async function ledger(call: PageCall<AccountViewer>): Promise<Html> {
  const { ctx, r, viewer } = call;
  const page = listPage(ctx, r);
  const query = { ...page, kind: choiceQuery(r, 'type', 'Type', CREDIT_ENTRY_KINDS), from: textQuery(r, 'from', 'From', 40), to: textQuery(r, 'to', 'To', 40) };
  const found = valueOrPageError(await ctx.core.credits.transactions(viewer.acting, query));
  const filters = filterForm(r, PATH, [
    { name: 'type', label: 'Type', choices: choicesOf(CREDIT_ENTRY_KINDS) },
    { name: 'from', label: 'From', type: 'date' },
    { name: 'to', label: 'To', type: 'date' },
  ]);
  return html`<h2>Transactions</h2>
    ${filters}
    ${table('Credits in and out, newest first', ['When', 'Type', 'Credits', 'Balance after', 'Why'], found.rows.map(entryRow), 'No transaction matches these filters.')}
    ${listPager(r, page, found.total)}`;
}

function payments(provider: 'offline' | 'stripe', card: SavedCard | null): Html {
  if (provider === 'offline')
    return html`<h2>Buying credits</h2>
      <p id="payments">Credits are granted by the platform: ask your provider for more.</p>`;
  const saved = card
    ? html`<p id="payments">Your saved card: ${card.brand} ending in ${card.last4}, expires ${card.expMonth}/${card.expYear}.</p>`
    : html`<p id="payments">No card is saved yet.</p>`;
  return html`<h2>Buying credits</h2>
    ${saved}`;
}

function transferForm(v: AccountViewer, s: CreditStanding, refused: Refused | undefined): Html | undefined {
  if (v.acting.parentId !== null || s.teams.length === 0) return undefined;
  const sent = refused?.form === 'transfer' ? refused.sent : {};
  const rows = s.teams.map(
    ({ team, balance }) =>
      html`<tr>
        <th scope="row">${team.name}</th>
        <td class="number">${team.creditsShared ? '—' : balance}</td>
        <td>${team.creditsShared ? 'shares the account’s' : 'its own'}</td>
      </tr>`,
  );
  return html`<h2>Credits of your teams</h2>
    ${table('Your teams’ credits', ['Team', 'Balance', 'Credits'], rows)} ${refused?.form === 'transfer' ? formError(refused.error.message) : undefined}
    <form method="post" action="${PATH}/transfer">
      ${formGuard(v)}
      <label for="transfer-team">Team</label>
      <select id="transfer-team" name="team_id">
        ${s.teams.map(({ team }) => html`<option value="${team.id}" ${sent.team_id === String(team.id) ? html`selected` : undefined}>${team.name}</option>`)}
      </select>
      <label for="transfer-amount">Credits to move (negative moves them back to the account)</label>
      <input type="text" id="transfer-amount" name="amount" inputmode="numeric" pattern="-?[0-9]+" value="${sent.amount ?? ''}" required />
      <button type="submit" class="primary" id="transfer">Move credits</button>
    </form>`;
}

function invoiceRow(i: Invoice): Html {
  return html`<tr>
    <th scope="row">${i.number}${i.revision > 1 ? ` (revision ${i.revision})` : ''}</th>
    <td>${when(i.issuedAt)}</td>
    <td class="number">${money(i.totalMinor, i.currency)}</td>
    <td>
      <a href="${PATH}/invoices/${i.id}" download>Download the PDF<span class="muted"> of ${i.number}</span></a>
    </td>
  </tr>`;
}

async function invoices(ctx: AppContext, team: Team): Promise<Html> {
  const found = await ctx.core.billing.invoices(accountIdOf(team), { page: 1, perPage: 50 });
  return html`<h2>Invoices</h2>
    ${table('Your invoices, newest first', ['Number', 'Issued', 'Total', 'PDF'], found.rows.map(invoiceRow), 'No invoice yet: one is issued for each payment.')}`;
}

const INFO_FIELDS = [
  ['name', 'Name (a company or a person)', 'organization'],
  ['postal_code', 'Postal code', 'postal-code'],
  ['city', 'City', 'address-level2'],
  ['region', 'Region or state (if any)', 'address-level1'],
  ['country', 'Country (ISO code, e.g. FR)', 'country'],
  ['tax_id', 'VAT number or tax id (if any)', 'off'],
  ['invoice_email', 'Invoices mailed to (empty: the owner)', 'email'],
] as const;

/** The billing info form's fields as its labels say them (the core names them as the REST route does). */
const INFO_LABELS: FieldLabels = {
  ...Object.fromEntries(INFO_FIELDS.map(([name, label]) => [name, label])),
  address_lines: 'Address',
};

function infoValues(info: BillingInfo | null): Record<string, string> {
  if (!info) return {};
  return {
    name: info.name,
    address_lines: info.addressLines.join('\n'),
    postal_code: info.postalCode,
    city: info.city,
    region: info.region,
    country: info.country,
    tax_id: info.taxId ?? '',
    invoice_email: info.invoiceEmail ?? '',
  };
}

function infoForm(v: AccountViewer, info: BillingInfo | null, refused: Refused | undefined): Html {
  const values: Record<string, string> = refused?.form === 'info' ? { ...refused.sent } : infoValues(info);
  const input = ([name, label, auto]: (typeof INFO_FIELDS)[number]) =>
    html`<label for="info-${name}">${label}</label> <input type="text" id="info-${name}" name="${name}" value="${values[name] ?? ''}" autocomplete="${auto}" />`;
  return html`<h2>Billing info</h2>
    ${refused?.form === 'info' ? formErrors(refused.problems ?? [refused.error.message]) : undefined}
    <form method="post" action="${PATH}/info">
      ${formGuard(v)} ${input(INFO_FIELDS[0])}
      <label for="info-address_lines">Address (one line each, at most 3)</label>
      <textarea id="info-address_lines" name="address_lines" autocomplete="street-address">${values.address_lines ?? ''}</textarea>
      ${INFO_FIELDS.slice(1).map(input)}
      <button type="submit" class="primary" id="save-info">Save billing info</button>
    </form>`;
}

async function billingAnswer(call: PageCall<AccountViewer>, refused?: Refused): Promise<PageAnswer> {
  const { ctx, r, viewer } = call;
  const team = viewer.acting;
  const [standing, card, info] = await Promise.all([ctx.core.credits.standing(team), ctx.core.payments.card(team), ctx.core.billing.info(accountIdOf(team))]);
  const body = html`${noticeOf(r, NOTICES)}
    <div class="cards">
      <div class="card">
        <span class="figure" id="balance">${standing.balance}</span> credits${standing.creditsShared && team.parentId !== null ? ' (the account’s)' : ''}
      </div>
      <div class="card"><span class="figure">${team.planType}</span> plan</div>
    </div>
    ${payments(ctx.core.payments.providerName, card)} ${transferForm(viewer, standing, refused)} ${await ledger(call)} ${await invoices(ctx, team)}
    ${infoForm(viewer, info, refused)}`;
  return { kind: 'page', status: refused?.error.status, title: 'Billing', body };
}

const billing = (call: PageCall<AccountViewer>): Promise<PageReply> => billingAnswer(call);

async function transfer(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const sent = { team_id: form.get('team_id') ?? '', amount: (form.get('amount') ?? '').trim() };
  const amount = /^-?\d{1,15}$/.test(sent.amount) ? Number(sent.amount) : Number.NaN;
  const teamId = /^\d{1,15}$/.test(sent.team_id) ? Number(sent.team_id) : 0;
  const actor = { kind: 'user', id: String(viewer.user.id) } as const;
  const moved = await ctx.core.credits.transfer(viewer.acting, { teamId, amount }, actor, log);
  if (!moved.ok) return billingAnswer(call, { form: 'transfer', error: pageErrorFor(moved.refusal), sent });
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'transferred') };
}

const INFO_NAMES = ['name', 'address_lines', 'postal_code', 'city', 'region', 'country', 'tax_id', 'invoice_email'] as const;

/** The change typed: every field as sent (trimmed by the core); an empty tax id or invoice email removes it. */
function infoChange(form: URLSearchParams): BillingInfoChange {
  const get = (n: string) => form.get(n) ?? '';
  const optional = (n: string) => (get(n).trim() === '' ? null : get(n));
  return {
    name: get('name'),
    addressLines: get('address_lines')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== ''),
    postalCode: get('postal_code'),
    city: get('city'),
    region: get('region'),
    country: get('country').trim().toUpperCase(),
    taxId: optional('tax_id'),
    invoiceEmail: optional('invoice_email'),
  };
}

async function saveInfo(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const saved = await ctx.core.billing.updateInfo(accountIdOf(viewer.acting), infoChange(form), log);
  if (!saved.ok) {
    const sent = Object.fromEntries(INFO_NAMES.map((n) => [n, form.get(n) ?? '']));
    return billingAnswer(call, { form: 'info', error: pageErrorFor(saved.refusal), problems: managementProblems(saved.refusal, INFO_LABELS), sent });
  }
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'info_saved') };
}

async function invoicePdf({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const found = await ctx.core.billing.invoiceDocument(accountIdOf(viewer.acting), idParam(r, 'invoice_id'));
  if (!found.ok && pageErrorFor(found.refusal).status === 404) throw pageError('not_found', 'There is no such invoice.');
  const { invoice, pdf } = valueOrPageError(found);
  const name = `${invoice.number}${invoice.revision > 1 ? `-r${invoice.revision}` : ''}.pdf`;
  return { kind: 'file', contentType: 'application/pdf', body: pdf(), headers: { 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' } };
}

export const BILLING_PAGES = [
  accountPage({ method: 'GET', path: PATH, title: 'Billing', access: 'owner', handle: billing }),
  accountPage({ method: 'POST', path: `${PATH}/transfer`, title: 'Billing', section: PATH, access: 'owner', handle: transfer }),
  accountPage({ method: 'POST', path: `${PATH}/info`, title: 'Billing', section: PATH, access: 'owner', handle: saveInfo }),
  accountPage({ method: 'GET', path: `${PATH}/invoices/:invoice_id`, title: 'Invoice', section: PATH, access: 'owner', handle: invoicePdf }),
];
