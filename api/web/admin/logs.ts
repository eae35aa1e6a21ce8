// Every team's message log (/admin/logs): newest first, the account log's filters and search plus a team
// filter; and one message (/admin/logs/:log_id) with its recipients and every delivery attempt. The same core use
// cases as the REST routes (core.messageLog.listAcrossTeams, getByLogId).
import { MESSAGE_STATUSES, type MessageStatus } from '../../../shared/domain/queue-state.js';
import type { NumberedLogEntry } from '../../../shared/domain/message-log.js';
import type { LoggedMessage } from '../../../shared/core/message-log.js';
import { html, type Html } from '../html.js';
import { valueOrPageError } from '../errors.js';
import { operatorPage, type PageCall } from '../page.js';
import { badge, table, when, type Tone } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { namedTeam } from './shared.js';
import { choiceQuery, choicesOf, filterForm, idParam, idQuery, listPage, listPager, textQuery } from '../lists.js';

const TONES: Readonly<Record<MessageStatus, Tone>> = { pending: 'pending', sent: 'good', bounced: 'bad', complained: 'bad', suppressed: 'bad', failed: 'bad' };

const recipientsOf = (m: NumberedLogEntry): string => m.to.map((a) => a.email).join(', ');

function messageRow(m: NumberedLogEntry, names: ReadonlyMap<number, string>): Html {
  return html`<tr>
    <th scope="row"><a href="/admin/logs/${m.logId}">${m.subject || '(no subject)'}</a></th>
    <td>${m.fromEmail}</td>
    <td>${recipientsOf(m)}</td>
    <td>${namedTeam(m.teamId, names)}</td>
    <td>${badge(m.status, TONES[m.status])}</td>
    <td>${when(m.createdAt)}</td>
  </tr>`;
}

async function logs({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const page = listPage(ctx, r);
  const filters = {
    teamId: idQuery(r, 'tenant_id', 'The tenant'),
    status: choiceQuery(r, 'status', 'Status', MESSAGE_STATUSES),
    domain: textQuery(r, 'domain', 'The domain', 253),
    from: textQuery(r, 'from', 'From', 40),
    to: textQuery(r, 'to', 'To', 40),
    search: textQuery(r, 'search', 'The search', 200),
  };
  const found = valueOrPageError(await ctx.core.messageLog.listAcrossTeams({ ...page, ...filters }));
  const form = filterForm(r, '/admin/logs', [
    { name: 'search', label: 'Words of subject, sender or recipients' },
    { name: 'status', label: 'Status', choices: choicesOf(MESSAGE_STATUSES) },
    { name: 'tenant_id', label: 'Tenant (id)', type: 'number' },
    { name: 'domain', label: 'Domain' },
    { name: 'from', label: 'From', type: 'date' },
    { name: 'to', label: 'To', type: 'date' },
  ]);
  const names = await ctx.core.adminTeams.names(found.rows.map((m) => m.teamId));
  const head = ['Subject', 'From', 'To', 'Tenant', 'Status', 'Created'];
  const body = html`${form}
  ${table(
    'Messages of every tenant, newest first',
    head,
    found.rows.map((m) => messageRow(m, names)),
    'No message matches these filters.',
  )}
  ${listPager(r, page, found.total)}`;
  return { kind: 'page', title: 'Logs', body };
}

function recipientsTable(found: LoggedMessage): Html {
  const rows = found.recipients.map(
    (p) =>
      html`<tr>
        <th scope="row">${p.email}</th>
        <td>${p.kind}</td>
        <td>${p.state}</td>
        <td>${p.reason || '—'}</td>
        <td class="number">${p.attempts}</td>
      </tr>`,
  );
  return table('Recipients', ['Recipient', 'Kind', 'State', 'Reason', 'Attempts'], rows, 'No recipient.');
}

function attemptsTable(found: LoggedMessage): Html {
  const emailOf = new Map(found.recipients.map((p) => [p.id, p.email]));
  const rows = found.attempts.map(
    (a) =>
      html`<tr>
        <th scope="row">${when(a.at)}</th>
        <td>${emailOf.get(a.recipientId) ?? '—'}</td>
        <td>${a.mxHost ?? '—'}</td>
        <td>${a.outcome}</td>
        <td>${a.reply}</td>
      </tr>`,
  );
  return table('Delivery attempts', ['When', 'Recipient', 'MX host', 'Outcome', 'Reply'], rows, 'No delivery attempt yet.');
}

async function message({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const logId = idParam(r, 'log_id');
  const found = valueOrPageError(await ctx.core.messageLog.getByLogId(logId));
  const m = found.message;
  const body = html`<dl>
      <dt>Status</dt>
      <dd>${badge(m.status, TONES[m.status])}${m.error ? html` — ${m.error}` : undefined}</dd>
      <dt>From</dt>
      <dd>${m.fromName ? `${m.fromName} <${m.fromEmail}>` : m.fromEmail}</dd>
      <dt>To</dt>
      <dd>${m.to.map((a) => a.email).join(', ')}</dd>
      <dt>Tenant</dt>
      <dd>${namedTeam(m.teamId, await ctx.core.adminTeams.names([m.teamId]))}</dd>
      <dt>Message-ID</dt>
      <dd><code>${m.messageIdHeader}</code></dd>
      <dt>Created</dt>
      <dd>${when(m.createdAt)}</dd>
      <dt>Sent</dt>
      <dd>${when(m.sentAt)}</dd>
    </dl>
    ${recipientsTable(found)} ${attemptsTable(found)}
    <p><a href="/admin/logs?tenant_id=${m.teamId}">Every message of this tenant</a></p>`;
  return { kind: 'page', title: `Message: ${m.subject || '(no subject)'}`, body };
}

export const ADMIN_LOG_PAGES = [
  operatorPage({ method: 'GET', path: '/admin/logs', title: 'Logs', handle: logs }),
  operatorPage({ method: 'GET', path: '/admin/logs/:log_id', title: 'Message', section: '/admin/logs', handle: message }),
];
