// The Domains page: the team's sending domains (status, last check, the default one), adding one (then its page
// shows the records to publish) and adding several at once, one per line, with what became of each name. The
// domain's own page and its actions are in domain-page.ts and domain-actions.ts; all are listed here.
import { BULK_ADD_MAX, type BulkAdded } from '../../../shared/core/domains.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import { html, type Html } from '../html.js';
import { pageErrorFor } from '../errors.js';
import { leaveFlash, takeFlash } from '../flash.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { badge, doneAt, formError, noticeOf, pager, table, when } from '../parts.js';
import { listPage as pageOfList } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import { DOMAIN_ITEM_PAGES } from './domain-actions.js';
import { domainPath, statusBadge } from './domain-page.js';

type Call = PageCall<AccountViewer>;

const PER_PAGE = 25;
const NOTICES = { deleted: 'The domain is deleted and its sending keys revoked. Remove its DNS records from its zone.' };

interface ListExtras {
  status?: number;
  /** Why the single add was refused, and the name it was given. */
  addProblem?: { message: string; name: string };
  bulkProblem?: { message: string; names: string };
  bulkResults?: BulkShown[];
}

/** What became of one name of a bulk add, as the page shows it: the added domain's page, or why it was refused. */
interface BulkShown {
  name: string;
  path?: string;
  why?: string;
}

/** The flash a bulk add leaves for the page it redirects to (web/flash.ts): a reload adds nothing twice. */
const BULK_FLASH = 'domains-bulk';

const bulkShown = (results: readonly BulkAdded[]): BulkShown[] =>
  results.map(({ name, added }) => (added.ok ? { name: added.value.name, path: domainPath(added.value) } : { name, why: pageErrorFor(added.refusal).message }));

function domainRow(d: Domain): Html {
  return html`<tr>
    <th scope="row"><a href="${domainPath(d)}">${d.name}</a></th>
    <td>${statusBadge(d)}</td>
    <td>${d.isDefault ? 'Default' : ''}</td>
    <td>${when(d.lastCheckAt)}</td>
    <td class="number">${d.totalSent}</td>
  </tr>`;
}

function addForms(v: AccountViewer, x: ListExtras): Html {
  return html`<section aria-labelledby="add-title">
    <h2 id="add-title">Add a domain</h2>
    ${formError(x.addProblem?.message)}
    <form method="post" action="/domains">
      ${formGuard(v)}
      <label for="domain-name">Domain name</label>
      <input type="text" id="domain-name" name="name" maxlength="253" required placeholder="example.com" value="${x.addProblem?.name ?? ''}" />
      <button type="submit" class="primary" id="add-domain">Add domain</button>
    </form>
    <details ${x.bulkProblem || x.bulkResults ? html`open` : undefined}>
      <summary>Add several at once</summary>
      ${formError(x.bulkProblem?.message)}
      <form method="post" action="/domains/bulk">
        ${formGuard(v)}
        <label for="domain-names">Domain names, one per line (up to ${BULK_ADD_MAX})</label>
        <textarea id="domain-names" name="names" rows="5" required>${x.bulkProblem?.names ?? ''}</textarea>
        <button type="submit" id="add-domains">Add these domains</button>
      </form>
    </details>
  </section>`;
}

function bulkResultsShown(results: BulkShown[] | undefined): Html | undefined {
  if (!results) return undefined;
  const added = results.filter((x) => x.path !== undefined).length;
  const rows = results.map(({ name, path, why }) =>
    path !== undefined
      ? html`<tr>
          <th scope="row"><a href="${path}">${name}</a></th>
          <td>${badge('Added', 'good')}</td>
          <td>Publish its DNS records next.</td>
        </tr>`
      : html`<tr>
          <th scope="row">${name}</th>
          <td>${badge('Refused', 'bad')}</td>
          <td>${why}</td>
        </tr>`,
  );
  return html`<section aria-labelledby="bulk-title" id="bulk-results">
    <h2 id="bulk-title">Added ${added} of ${results.length}</h2>
    ${table('What became of each name', ['Domain', 'Result', 'Why / next'], rows)}
  </section>`;
}

async function listPage({ ctx, r, viewer }: Pick<Call, 'ctx' | 'r' | 'viewer'>, x: ListExtras = {}): Promise<PageAnswer> {
  const page = pageOfList(ctx, r, PER_PAGE).page;
  const { rows, total } = await ctx.core.domains.list(viewer.acting, { page, perPage: PER_PAGE });
  const mayWrite = viewerMay(ctx, viewer, 'write');
  const empty = mayWrite ? 'No domains yet — add one to start sending.' : 'No domains yet.';
  const body = html`${x.status ? undefined : noticeOf(r, NOTICES)} ${bulkResultsShown(x.bulkResults)}
  ${table(`Sending domains (${total})`, ['Domain', 'Status', 'Default', 'Last check', 'Sent'], rows.map(domainRow), empty)} ${pager(r, page, Math.ceil(total / PER_PAGE))}
  ${mayWrite ? addForms(viewer, x) : undefined}`;
  return { kind: 'page', status: x.status, title: 'Domains', body };
}

async function addDomain(call: Call): Promise<PageReply> {
  const { ctx, viewer, form, log } = call;
  const name = (form.get('name') ?? '').trim();
  const added = await ctx.core.domains.add(viewer.acting, name, log);
  if (added.ok) return { kind: 'redirect', status: 303, location: doneAt(domainPath(added.value), 'added') };
  const e = pageErrorFor(added.refusal);
  return listPage(call, { status: e.status, addProblem: { message: e.message, name } });
}

async function addDomains(call: Call): Promise<PageReply> {
  const { ctx, viewer, form, log } = call;
  const text = form.get('names') ?? '';
  const names = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const results = await ctx.core.domains.addAll(viewer.acting, names, log);
  if (!results.ok) {
    const e = pageErrorFor(results.refusal);
    return listPage(call, { status: e.status, bulkProblem: { message: e.message, names: text } });
  }
  // Nothing added: the form again, as typed (429 when the limit refused every name). Something added: a redirect
  // (a reload adds nothing), the results waiting for the page in a one-time flash.
  const added = results.value.results;
  if (added.every((x) => !x.added.ok)) {
    const limited = added.every((x) => !x.added.ok && x.added.refusal.kind === 'rate_limited');
    return listPage(call, { status: limited ? 429 : 400, bulkResults: bulkShown(added), bulkProblem: { message: '', names: text } });
  }
  await leaveFlash(ctx, viewer, BULK_FLASH, { results: JSON.stringify(bulkShown(added)) });
  return { kind: 'redirect', status: 303, location: '/domains#bulk-results' };
}

/** The domains page, with what became of a bulk add just made (taken from its flash). */
async function showDomains(call: Call): Promise<PageReply> {
  const flash = await takeFlash(call.ctx, call.viewer, BULK_FLASH);
  return listPage(call, { bulkResults: flash?.results === undefined ? undefined : (JSON.parse(flash.results) as BulkShown[]) });
}

export const DOMAIN_PAGES = [
  accountPage({ method: 'GET', path: '/domains', title: 'Domains', access: 'read', handle: showDomains }),
  accountPage({ method: 'POST', path: '/domains', title: 'Domains', access: 'write', rate: 'domains', handle: addDomain }),
  // Counted per name by the core (addAll), not once per form.
  accountPage({ method: 'POST', path: '/domains/bulk', title: 'Domains', access: 'write', rate: null, section: '/domains', handle: addDomains }),
  ...DOMAIN_ITEM_PAGES,
];
