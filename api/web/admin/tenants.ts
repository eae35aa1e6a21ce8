// The operator's teams: every account and team (search by name, filters, paging) and one team's page: who it
// is, its balance and sending, its users, what the MTA holds of it now, and the platform's actions on it —
// suspend or reactivate with a reason, mail its owners the low-credit message. The same core use cases as the
// REST routes (core.adminTeams, core.platformCredits); each action is in the audit log.
import type { MtaStatus, SendingFigures, AdminTeamDetail, AdminTeamSummary } from '../../../shared/core/admin/teams.js';
import type { Team } from '../../../shared/domain/team.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { pageErrorFor, valueOrPageError, type PageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, figuresTable, formError, noticeOf, table, when } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { forOperator } from './system-mail.js';
import type { OperatorViewer } from '../viewer.js';
import { choiceQuery, filterForm, idParam, idQuery, listPage, listPager, textQuery } from '../lists.js';
import { namedTeam, percent, teamLink } from './shared.js';

const STATUSES = ['active', 'suspended'] as const;
const KINDS = ['account', 'team'] as const;

const NOTICES = {
  suspended: 'The tenant is suspended: its mail is held until it is reactivated.',
  reactivated: 'The tenant is reactivated.',
  low_credit_sent: 'The low-credit email is sent to the account’s owners.',
};

const kindOf = (t: Team): string => (t.parentId === null ? 'Account' : 'Team');

export const statusBadge = (t: Team): Html => (t.status === 'active' ? badge('Active', 'good') : badge(`Suspended by the ${t.suspendedBy ?? 'platform'}`, 'bad'));

/** "Account", or "Team of <its account, named>". */
const kindText = (t: Team, names: ReadonlyMap<number, string>): Html =>
  t.parentId === null ? html`${kindOf(t)}` : html`${kindOf(t)} of ${namedTeam(t.parentId, names)}`;

function teamRow(s: AdminTeamSummary, names: ReadonlyMap<number, string>): Html {
  const t = s.team;
  return html`<tr>
    <th scope="row">${teamLink(t)}</th>
    <td class="number">${t.id}</td>
    <td>${kindText(t, names)}</td>
    <td>${statusBadge(t)}</td>
    <td class="number">${s.balance}</td>
    <td class="number">${s.sending.sent}</td>
    <td class="number">${percent(s.sending.bounceRate)}</td>
    <td>${when(t.createdAt)}</td>
  </tr>`;
}

async function teams({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const filter = {
    search: textQuery(r, 'search', 'The name searched', 100),
    status: choiceQuery(r, 'status', 'Status', STATUSES),
    kind: choiceQuery(r, 'kind', 'Kind', KINDS),
    parentId: idQuery(r, 'parent_id', 'The account'),
  };
  const page = listPage(ctx, r);
  const found = await ctx.core.adminTeams.list(filter, page);
  const filters = filterForm(r, '/admin/tenants', [
    { name: 'search', label: 'Name contains' },
    {
      name: 'status',
      label: 'Status',
      choices: [
        ['active', 'Active'],
        ['suspended', 'Suspended'],
      ],
    },
    {
      name: 'kind',
      label: 'Kind',
      choices: [
        ['account', 'Accounts'],
        ['team', 'Child teams'],
      ],
    },
    { name: 'parent_id', label: 'Teams of account (id)', type: 'number' },
  ]);
  const names = await ctx.core.adminTeams.names(found.rows.flatMap((s) => (s.team.parentId === null ? [] : [s.team.parentId])));
  const head = ['Name', 'Id', 'Kind', 'Status', 'Balance', `Sent, ${ctx.core.adminTeams.windowDays} days`, 'Bounce rate', 'Created'];
  const body = html`${filters}
    <p class="muted">${found.total} tenant${found.total === 1 ? '' : 's'}</p>
    ${table(
      'Tenants',
      head,
      found.rows.map((s) => teamRow(s, names)),
      'No tenant matches these filters.',
    )}
    ${listPager(r, page, found.total)}`;
  return { kind: 'page', title: 'Tenants', body };
}

function sendingTable(s: SendingFigures): Html {
  return figuresTable(
    `Sending over the last ${s.windowDays} days`,
    ['Figure', 'Value'],
    [
      ['Sent', s.sent],
      ['Bounced', s.bounced],
      ['Complained', s.complained],
      ['Bounce rate', percent(s.bounceRate)],
      ['Complaint rate', percent(s.complaintRate)],
    ],
  );
}

function facts(d: AdminTeamDetail, names: ReadonlyMap<number, string>): Html {
  const t = d.team;
  const suspension = t.suspension
    ? html`<p class="suspended" id="suspension"><strong>Suspended by the ${t.suspension.by}</strong> on ${when(t.suspension.at)}: ${t.suspension.reason}</p>`
    : undefined;
  return html`${suspension}
    <div class="cards">
      <div class="card"><span class="figure" id="balance">${d.balance}</span> credits${t.parentId !== null && t.creditsShared ? ' (its account’s)' : ''}</div>
      <div class="card"><span class="figure">${d.domainsCount}</span> domains</div>
      <div class="card"><span class="figure">${d.teamsCount}</span> child teams</div>
    </div>
    <dl>
      <dt>Status</dt>
      <dd id="tenant-status">${statusBadge(t)}</dd>
      <dt>Kind</dt>
      <dd>${kindText(t, names)}</dd>
      <dt>Plan</dt>
      <dd>${t.planType}</dd>
      <dt>Created</dt>
      <dd>${when(t.createdAt)}</dd>
    </dl>`;
}

function usersTable(d: AdminTeamDetail): Html {
  const rows = d.users.map(
    (u) =>
      html`<tr>
        <th scope="row">${u.email}</th>
        <td>${u.name}</td>
        <td>${u.role}</td>
        <td>${when(u.createdAt)}</td>
      </tr>`,
  );
  return table('Its users', ['Email', 'Name', 'Role', 'Since'], rows, 'It has no users of its own.');
}

function mtaSection(m: MtaStatus): Html {
  const destinations = m.destinations.map(
    (q) =>
      html`<tr>
        <th scope="row">${q.domain}</th>
        <td class="number">${q.queued}</td>
        <td class="number">${q.sending}</td>
        <td class="number">${q.deferred}</td>
        <td>${when(new Date(q.oldestQueuedAt).toISOString())}</td>
      </tr>`,
  );
  const errors = m.lastErrors.map(
    (e) =>
      html`<tr>
        <th scope="row">${e.email}</th>
        <td>${e.state}</td>
        <td>${e.reply}</td>
        <td class="number">${e.attempts}</td>
        <td>${when(e.at)}</td>
      </tr>`,
  );
  const oldest = m.oldestQueuedAt === null ? 'nothing is waiting' : `the oldest since ${when(new Date(m.oldestQueuedAt).toISOString())}`;
  return html`<h2>In the MTA now</h2>
    <p><span id="mta-depth">${m.queueDepth}</span> recipients in flight; ${oldest}.</p>
    ${table('Recipients in flight by destination', ['Destination', 'Queued', 'Sending', 'Deferred', 'Oldest'], destinations, 'Nothing in flight.')}
    ${table('Last errors', ['Recipient', 'State', 'Reply', 'Attempts', 'When'], errors, 'No recent error.')}`;
}

const STATUS_ACTIONS = {
  suspend: { label: 'Suspend the tenant', tone: 'danger', hint: ' and shown to the tenant', confirm: 'Suspend this tenant? Its mail is held until it is reactivated.' },
  reactivate: { label: 'Reactivate the tenant', tone: 'primary', hint: '', confirm: 'Reactivate this tenant? Its mail is sent again.' },
} as const;

function reasonForm(v: OperatorViewer, t: Team, action: keyof typeof STATUS_ACTIONS): Html {
  const a = STATUS_ACTIONS[action];
  return html`<form method="post" action="/admin/tenants/${t.id}/${action}" data-confirm="${a.confirm}">
    ${formGuard(v)}
    <label for="${action}-reason">Why (kept in the audit log${a.hint})</label>
    <input type="text" id="${action}-reason" name="reason" maxlength="500" required />
    <button type="submit" class="${a.tone}" id="${action}">${a.label}</button>
  </form>`;
}

/** An active team may be suspended; a suspended one reactivated; one its owner suspended, either. */
function statusForms(v: OperatorViewer, t: Team): Html {
  return html`${t.status === 'active' || t.suspendedBy === 'account' ? reasonForm(v, t, 'suspend') : undefined}
  ${t.status === 'suspended' ? reasonForm(v, t, 'reactivate') : undefined}`;
}

async function teamAnswer(ctx: AppContext, call: PageCall<OperatorViewer>, id: number, error?: PageError): Promise<PageAnswer> {
  const { detail: d, mta: m } = valueOrPageError(await ctx.core.adminTeams.getWithMtaStatus(id));
  const t = d.team;
  const body = html`${noticeOf(call.r, NOTICES)} ${formError(error?.message)} ${facts(d, await ctx.core.adminTeams.names(t.parentId === null ? [] : [t.parentId]))}
    <h2>Actions</h2>
    ${statusForms(call.viewer, t)}
    <p>
      ${actionButton(call.viewer, `/admin/tenants/${t.id}/low-credit-email`, 'Send the low-credit email', {
        confirm: 'Mail the account’s owners its low-credit message now?',
        id: 'low-credit-email',
      })}
      <a class="button" href="/admin/credits?account_id=${t.id}">Grant or remove credits</a>
    </p>
    ${sendingTable(d.sending)} ${usersTable(d)} ${mtaSection(m)}
    <p>
      <a href="/admin/domains?tenant_id=${t.id}">Its domains</a> · <a href="/admin/logs?tenant_id=${t.id}">Its messages</a> ·
      <a href="/admin/audit-log?target_kind=tenant&amp;target_id=${t.id}">Its audit log</a>
    </p>`;
  return { kind: 'page', status: error?.status, title: `Tenant: ${t.name}`, body };
}

const oneTeam = (call: PageCall<OperatorViewer>): Promise<PageReply> => teamAnswer(call.ctx, call, idParam(call.r, 'id'));

/** A refused action: the team's page again with why; no such team is a 404. */
function refusedOn(call: PageCall<OperatorViewer>, id: number, refusal: ManagementRefusal): Promise<PageAnswer> {
  const e = forOperator(pageErrorFor(refusal), refusal.kind);
  if (e.status === 404) throw e;
  return teamAnswer(call.ctx, call, id, e);
}

/** Suspends or reactivates: the team's page again with why when refused (a missing reason), 404 for no team. */
function statusChange(to: 'suspend' | 'reactivate') {
  return async (call: PageCall<OperatorViewer>): Promise<PageReply> => {
    const { ctx, form, viewer, log } = call;
    const id = idParam(call.r, 'id');
    const reason = form.get('reason') ?? '';
    const changed = await ctx.core.adminTeams[to](viewer.user, id, reason, log);
    if (!changed.ok) return refusedOn(call, id, changed.refusal);
    return { kind: 'redirect', status: 303, location: doneAt(`/admin/tenants/${id}`, to === 'suspend' ? 'suspended' : 'reactivated') };
  };
}

async function lowCreditEmail(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const id = idParam(call.r, 'id');
  const sent = await call.ctx.core.platformCredits.sendLowCreditEmail(call.viewer.user, id, call.log);
  if (!sent.ok) return refusedOn(call, id, sent.refusal);
  return { kind: 'redirect', status: 303, location: doneAt(`/admin/tenants/${id}`, 'low_credit_sent') };
}

export const ADMIN_TEAM_PAGES = [
  operatorPage({ method: 'GET', path: '/admin/tenants', title: 'Tenants', handle: teams }),
  operatorPage({ method: 'GET', path: '/admin/tenants/:id', title: 'Tenant', section: '/admin/tenants', handle: oneTeam }),
  operatorPage({ method: 'POST', path: '/admin/tenants/:id/suspend', title: 'Suspend a tenant', section: '/admin/tenants', handle: statusChange('suspend') }),
  operatorPage({ method: 'POST', path: '/admin/tenants/:id/reactivate', title: 'Reactivate a tenant', section: '/admin/tenants', handle: statusChange('reactivate') }),
  operatorPage({ method: 'POST', path: '/admin/tenants/:id/low-credit-email', title: 'Low-credit email', section: '/admin/tenants', handle: lowCreditEmail }),
];
