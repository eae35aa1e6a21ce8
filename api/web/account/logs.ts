// The message log page: the team's messages newest first, searched and filtered (status, domain, dates) as
// GET /api/tern/v2/api/logs does, through the same use case (core/message-log.ts), a page at a time; each row
// opens its message. The filters are a GET form, so a filtered page is a link, and paging keeps them.
import type { Domain } from '../../../shared/domain/sending-domain.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../../shared/domain/queue-state.js';
import type { NumberedLogEntry } from '../../../shared/domain/message-log.js';
import type { LogFilters, LogPage } from '../../../shared/core/message-log.js';
import { PER_PAGE, pagingProblem } from '../lists.js';
import { html, type Html } from '../html.js';
import { pageErrorFor } from '../errors.js';
import { accountPage, type PageCall } from '../page.js';
import { badge, formError, pageAsked, pager, table, when, type Tone } from '../parts.js';
import type { PageRequest } from '../request.js';
import type { PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';

export const LOGS_PATH = '/logs';

/** A message's status as a badge: words first, the colour only repeats them. */
const STATUS_TONES: Readonly<Record<MessageStatus, Tone>> = {
  pending: 'pending',
  sent: 'good',
  bounced: 'bad',
  complained: 'bad',
  suppressed: 'pending',
  failed: 'bad',
};
export const statusBadge = (s: MessageStatus): Html => badge(s, STATUS_TONES[s]);

/** The link to one message's page. */
export const messagePath = (id: string): string => `${LOGS_PATH}/${encodeURIComponent(id)}`;

interface AskedFilters {
  status: string;
  domain: string;
  from: string;
  to: string;
  search: string;
}

const asked = (r: PageRequest): AskedFilters => ({
  status: r.query.status ?? '',
  domain: r.query.domain ?? '',
  from: r.query.from ?? '',
  to: r.query.to ?? '',
  search: r.query.search ?? '',
});

const isStatus = (s: string): s is MessageStatus => (MESSAGE_STATUSES as readonly string[]).includes(s);

const selected = (on: boolean): Html | undefined => (on ? html`selected` : undefined);

function filtersForm(f: AskedFilters, domains: readonly Domain[]): Html {
  return html`<form method="get" action="${LOGS_PATH}" class="filters" role="search" aria-label="Search the log">
      <div>
        <label for="search">Search</label>
        <input type="search" id="search" name="search" value="${f.search}" maxlength="200" aria-describedby="search-hint" />
      </div>
      <div>
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">Any status</option>
          ${MESSAGE_STATUSES.map((s) => html`<option value="${s}" ${selected(f.status === s)}>${s}</option>`)}
        </select>
      </div>
      <div>
        <label for="domain">Domain</label>
        <select id="domain" name="domain">
          <option value="">Any domain</option>
          ${domains.map((d) => html`<option value="${d.id}" ${selected(f.domain === d.id || f.domain === d.name)}>${d.name}</option>`)}
        </select>
      </div>
      <div>
        <label for="from">From (UTC)</label>
        <input type="date" id="from" name="from" value="${f.from}" />
      </div>
      <div>
        <label for="to">To (UTC)</label>
        <input type="date" id="to" name="to" value="${f.to}" />
      </div>
      <div>
        <button type="submit" class="primary" id="apply-filters">Search</button>
        <a href="${LOGS_PATH}">Clear</a>
      </div>
    </form>
    <p class="hint" id="search-hint">Search looks for whole words of the subject, the sender or the recipients; end a word with * to match its start.</p>`;
}

function row(m: NumberedLogEntry, recipients: number): Html {
  const firstTo = m.to[0]?.email;
  const others = recipients - (firstTo ? 1 : 0);
  return html`<tr>
    <td class="time">${when(m.createdAt)}</td>
    <td>${statusBadge(m.status)}</td>
    <th scope="row"><a href="${messagePath(m.id)}">${m.subject || '(no subject)'}</a></th>
    <td>${m.fromEmail}</td>
    <td>${firstTo ?? '—'}${others > 0 ? html` <span class="muted">+${others}</span>` : undefined}</td>
  </tr>`;
}

function results(r: PageRequest, found: LogPage, pageNo: number, filtered: boolean): Html {
  const empty = filtered ? 'No message matches these filters.' : 'No messages yet — send one through the API or SMTP and it shows here.';
  const rows = found.rows.map((m) => row(m, found.recipientCounts.get(m.id) ?? 0));
  return html`<p class="muted" id="log-total">${found.total} ${found.total === 1 ? 'message' : 'messages'}</p>
    ${table('Messages, newest first', ['Time', 'Status', 'Subject', 'From', 'To'], rows, empty)} ${pager(r, pageNo, Math.ceil(found.total / PER_PAGE))}`;
}

/** The filters as the core takes them, or why they cannot be (a status the log does not have). */
function coreFilters(f: AskedFilters): Omit<LogFilters, 'page' | 'perPage'> | string {
  if (f.status && !isStatus(f.status)) return `Status must be one of: ${MESSAGE_STATUSES.join(', ')}.`;
  if (f.search.length > 200) return 'The search is longer than 200 characters.';
  return {
    status: f.status && isStatus(f.status) ? f.status : undefined,
    domain: f.domain || undefined,
    from: f.from || undefined,
    to: f.to || undefined,
    search: f.search || undefined,
  };
}

async function showLogs({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const team = viewer.acting;
  const f = asked(r);
  const pageNo = pageAsked(r);
  const filters = coreFilters(f);
  let error: string | undefined = typeof filters === 'string' ? filters : undefined;
  error ??= pagingProblem(ctx, pageNo, 'messages');
  let shown: Html | undefined;
  // The domains (for the filter) are read while the log is.
  const domainsRead = ctx.core.domains.all(team);
  if (!error && typeof filters !== 'string') {
    const [found] = await Promise.all([ctx.core.messageLog.list(team, { page: pageNo, perPage: PER_PAGE, ...filters }), domainsRead]);
    if (found.ok)
      shown = results(
        r,
        found.value,
        pageNo,
        Object.values(f).some((v) => v !== ''),
      );
    else if (found.refusal.kind === 'invalid_field') error = found.refusal.message;
    else throw pageErrorFor(found.refusal);
  }
  const body = html`${filtersForm(f, await domainsRead)} ${formError(error)} ${shown}`;
  return { kind: 'page', status: error ? 400 : undefined, title: 'Logs', body };
}

export const LOG_LIST_PAGES = [accountPage({ method: 'GET', path: LOGS_PATH, title: 'Logs', access: 'read', handle: showLogs })];
