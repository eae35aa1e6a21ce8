// The suppression list page: the team's suppressed addresses newest first, searched and filtered by reason,
// a page at a time; adding one by hand (the same use case as POST /v2/suppressions); removing one (the account's daily allowance shown, used only by a real removal, as
// DELETE /v2/suppressions does); and the CSV export, the same stream as GET /api/tern/v2/suppressions/export.
import { accountIdOf } from '../../../shared/domain/team.js';
import { SUPPRESSION_STATUSES, type Suppression, type SuppressionStatus } from '../../../shared/domain/suppression.js';
import type { RemovalAllowance, SuppressionFilter } from '../../../shared/core/suppressions.js';
import { csvOf } from '../../presenters/suppressions.js';
import { PER_PAGE, pagingProblem } from '../lists.js';
import { html, type Html } from '../html.js';
import { pageErrorFor } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formError, noticeOf, pageAsked, pager, table, when, type Tone } from '../parts.js';
import type { PageRequest } from '../request.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import { messagePath } from './logs.js';

export const SUPPRESSIONS_PATH = '/suppressions';
const REMOVE_PATH = `${SUPPRESSIONS_PATH}/remove`;
const EXPORT_PATH = `${SUPPRESSIONS_PATH}/export`;
const SEARCH_MAX = 254;

const ADD_PATH = `${SUPPRESSIONS_PATH}/add`;

const NOTICES = {
  removed: 'The address is removed from the suppression list: mail to it is sent again.',
  added: 'The address is on the suppression list: mail to it is not sent.',
};

const LABELS: Readonly<Record<SuppressionStatus, string>> = { bounced: 'hard bounce', complained: 'complaint', suppressed: 'added by hand' };
const TONES: Readonly<Record<SuppressionStatus, Tone>> = { bounced: 'bad', complained: 'bad', suppressed: 'pending' };

const isStatus = (s: string): s is SuppressionStatus => (SUPPRESSION_STATUSES as readonly string[]).includes(s);

/** The filter asked for in the query, or why it cannot be used. */
function filterOf(r: PageRequest): SuppressionFilter | string {
  const status = r.query.status ?? '';
  const search = r.query.search ?? '';
  // In the words the Reason menu uses (hard bounce, …), not the stored statuses.
  if (status && !isStatus(status)) return `Reason must be one of: ${SUPPRESSION_STATUSES.map((x) => LABELS[x]).join(', ')}.`;
  if (search.length > SEARCH_MAX) return `The search is longer than ${SEARCH_MAX} characters.`;
  return { search: search || undefined, status: status && isStatus(status) ? status : undefined };
}

const selected = (on: boolean): Html | undefined => (on ? html`selected` : undefined);

function filtersForm(r: PageRequest): Html {
  const status = r.query.status ?? '';
  return html`<form method="get" action="${SUPPRESSIONS_PATH}" class="filters" role="search" aria-label="Search the suppression list">
    <div>
      <label for="search">Address contains</label>
      <input type="search" id="search" name="search" value="${r.query.search ?? ''}" maxlength="${SEARCH_MAX}" />
    </div>
    <div>
      <label for="status">Reason</label>
      <select id="status" name="status">
        <option value="">Any reason</option>
        ${SUPPRESSION_STATUSES.map((s) => html`<option value="${s}" ${selected(status === s)}>${LABELS[s]}</option>`)}
      </select>
    </div>
    <div>
      <button type="submit" class="primary" id="apply-filters">Search</button>
      <a href="${SUPPRESSIONS_PATH}">Clear</a>
    </div>
  </form>`;
}

/** The export link, with the list's filter: the CSV holds what the list shows, every page of it. */
function exportLink(f: SuppressionFilter): Html {
  const q = new URLSearchParams();
  if (f.search) q.set('search', f.search);
  if (f.status) q.set('status', f.status);
  const query = q.toString();
  return html`<a class="button" id="export-csv" href="${query ? `${EXPORT_PATH}?${query}` : EXPORT_PATH}" download>Export CSV</a>`;
}

function row(s: Suppression, removable: AccountViewer | undefined): Html {
  return html`<tr>
    <th scope="row">${s.email}</th>
    <td>${badge(LABELS[s.status], TONES[s.status])}</td>
    <td>${s.reason || '—'}</td>
    <td>${s.messageId ? html`<a href="${messagePath(s.messageId)}">View message</a>` : '—'}</td>
    <td class="time">${when(s.createdAt)}</td>
    ${
      removable
        ? html`<td>
            ${actionButton(removable, REMOVE_PATH, 'Remove', { confirm: `Remove ${s.email} from the suppression list? Mail to it will be sent again.`, danger: true, fields: { email: s.email } })}
          </td>`
        : undefined
    }
  </tr>`;
}

/** Adding an address by hand (core.suppressions.add, as POST /v2/suppressions), with what was typed when refused. */
function addForm(v: AccountViewer, typed: Readonly<Record<string, string>> = {}): Html {
  return html`<details class="card" ${typed.email !== undefined ? html`open` : undefined}>
    <summary>Add an address by hand</summary>
    <form method="post" action="${ADD_PATH}">
      ${formGuard(v)}
      <label for="add-email">Email address</label>
      <input type="email" id="add-email" name="email" maxlength="254" required value="${typed.email ?? ''}" />
      <label for="add-reason">Reason (optional)</label>
      <input type="text" id="add-reason" name="reason" maxlength="500" value="${typed.reason ?? ''}" />
      <button type="submit" class="primary" id="add-suppression">Add to the list</button>
    </form>
  </details>`;
}

const allowanceLine = (a: RemovalAllowance): Html =>
  html`<p class="hint" id="removals-left">${a.remainingToday} of ${a.dailyLimit} removals left today (UTC); the allowance is the account’s, shared by its teams.</p>`;

/** The list page, with an error when a filter or a removal was refused (its status then). */
async function listPage(
  { ctx, r, viewer }: PageCall<AccountViewer>,
  refused?: { status: number; message: string; headers?: Readonly<Record<string, string>>; typed?: Readonly<Record<string, string>> },
): Promise<PageAnswer> {
  const team = viewer.acting;
  const filter = filterOf(r);
  const pageNo = pageAsked(r);
  let error = refused?.message ?? (typeof filter === 'string' ? filter : undefined);
  error ??= pagingProblem(ctx, pageNo, 'addresses');
  const may = viewerMay(ctx, viewer, 'write');
  let shown: Html | undefined;
  if (typeof filter !== 'string' && (refused || !error)) {
    const found = await ctx.core.suppressions.list(team, { page: pageNo, perPage: PER_PAGE, ...filter });
    const filtered = filter.search !== undefined || filter.status !== undefined;
    const empty = filtered ? 'No address matches these filters.' : 'No suppressed addresses — hard bounces and complaints are added here so they are not sent to again.';
    const head = ['Address', 'Reason', 'Detail', 'Message', 'Added', ...(may ? ['Action'] : [])];
    shown = html`<p class="muted" id="suppression-total">${found.total} ${found.total === 1 ? 'address' : 'addresses'} ${exportLink(filter)}</p>
      ${table(
        'Suppressed addresses, newest first',
        head,
        found.rows.map((s) => row(s, may ? viewer : undefined)),
        empty,
      )}
      ${pager(r, pageNo, Math.ceil(found.total / PER_PAGE))}`;
  }
  const allowance = may ? allowanceLine(await ctx.core.suppressions.allowance(accountIdOf(team))) : undefined;
  const body = html`${noticeOf(r, NOTICES)} ${formError(error)} ${may ? addForm(viewer, refused?.typed) : undefined} ${filtersForm(r)} ${allowance} ${shown}`;
  return { kind: 'page', status: refused?.status ?? (error ? 400 : undefined), title: 'Suppressions', body, headers: { ...refused?.headers } };
}

const showSuppressions = (call: PageCall<AccountViewer>): Promise<PageReply> => listPage(call);

async function removeSuppression(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const email = (form.get('email') ?? '').trim();
  if (!email || email.length > SEARCH_MAX) return listPage(call, { status: 400, message: 'Give the address to remove (at most 254 characters).' });
  const removed = await ctx.core.suppressions.remove(viewer.acting, accountIdOf(viewer.acting), email, log);
  if (!removed.ok) {
    const e = pageErrorFor(removed.refusal);
    return listPage(call, { status: e.status, message: e.message, headers: e.headers });
  }
  return { kind: 'redirect', status: 303, location: doneAt(SUPPRESSIONS_PATH, 'removed') };
}

async function addSuppression(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const typed = { email: form.get('email') ?? '', reason: form.get('reason') ?? '' };
  const added = await ctx.core.suppressions.add(viewer.acting, typed.email, typed.reason, log);
  if (!added.ok) {
    const e = pageErrorFor(added.refusal);
    return listPage(call, { status: e.status, message: e.message, headers: e.headers, typed });
  }
  return { kind: 'redirect', status: 303, location: doneAt(SUPPRESSIONS_PATH, 'added') };
}

function exportSuppressions({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const filter = filterOf(r);
  if (typeof filter === 'string') return Promise.resolve({ kind: 'page', status: 400, title: 'Export suppressions', body: html`${formError(filter)}` });
  const team = viewer.acting;
  const filename = `suppressions-team-${team.id}-${new Date().toISOString().slice(0, 10)}.csv`;
  return Promise.resolve({
    kind: 'file',
    contentType: 'text/csv; charset=utf-8',
    body: csvOf(ctx.core.suppressions.walk(team, filter)),
    headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
  });
}

export const SUPPRESSION_PAGES = [
  accountPage({ method: 'GET', path: SUPPRESSIONS_PATH, title: 'Suppressions', access: 'read', handle: showSuppressions }),
  accountPage({ method: 'POST', path: ADD_PATH, title: 'Suppressions', section: SUPPRESSIONS_PATH, access: 'write', handle: addSuppression }),
  accountPage({ method: 'POST', path: REMOVE_PATH, title: 'Suppressions', section: SUPPRESSIONS_PATH, access: 'write', handle: removeSuppression }),
  accountPage({ method: 'GET', path: EXPORT_PATH, title: 'Export suppressions', section: SUPPRESSIONS_PATH, access: 'read', handle: exportSuppressions }),
];
