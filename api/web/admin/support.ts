// The operators' support pages (/admin/support): every account's tickets (open, closed or all, searched, by
// tenant) and a ticket's page where an operator answers (the answer is mailed to the ticket's opener), closes and
// re-opens it, with the account's context beside it (plan, credits, sending and its rates, suppressions, queue,
// open tickets), and who has it (assigned to an operator, or nobody; the list filters on it). The same use cases
// as the REST routes (core.supportTickets, core.supportWidgets); each answer, close, re-open and assignment is in
// the audit log.
import { TICKET_FILTERS, type Ticket } from '../../../shared/domain/support.js';
import type { Operator } from '../../../shared/domain/user.js';
import type { AccountWidgets } from '../../../shared/core/support/widgets.js';
import { html, type Html } from '../html.js';
import { valueOrPageError } from '../errors.js';
import { operatorPage, type PageCall } from '../page.js';
import { doneAt, figuresTable, noticeOf } from '../parts.js';
import { formGuard } from '../layout.js';
import { pageError } from '../errors.js';
import { choiceQuery, filterForm, idParam, idQuery, listPage, listPager, textQuery } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import {
  ATTACHMENT_UPLOAD,
  TICKET_FILTER_FIELDS,
  download,
  move,
  partyOf,
  replyForm,
  respond,
  statusAction,
  ticketBody,
  ticketOf,
  ticketTable,
  type TicketShape,
} from '../support/shared.js';
import { namedTeam, percent } from './shared.js';

const PATH = '/admin/support';
const TITLE = 'Support';
const NOTICES = {
  answered: 'Your answer is added and mailed to the ticket’s opener.',
  closed: 'The ticket is closed.',
  reopened: 'The ticket is open again.',
  assigned: 'The ticket’s assignee is saved.',
};

type Call = PageCall<OperatorViewer>;

/** The `assigned` filter: me, none, or an operator's id; anything else is a 400. */
function assignedQuery(c: Call): number | 'me' | 'none' | undefined {
  const value = c.r.query.assigned ?? '';
  if (value === '') return undefined;
  if (value === 'me' || value === 'none') return value;
  if (!/^[1-9]\d{0,14}$/.test(value)) throw pageError('invalid_request', 'Assigned to must be me, none or an operator.');
  return Number(value);
}

const operatorName = (o: { name: string; email: string }): string => (o.name ? `${o.name} (${o.email})` : o.email);

async function tickets(c: Call): Promise<PageReply> {
  const query = {
    filterType: choiceQuery(c.r, 'filter_type', 'Show', TICKET_FILTERS) ?? 'all',
    search: textQuery(c.r, 'search', 'The text searched', 200),
    teamId: idQuery(c.r, 'tenant_id', 'The tenant'),
    assigned: assignedQuery(c),
  };
  const page = listPage(c.ctx, c.r);
  const found = await c.ctx.core.supportTickets.list(partyOf(c.viewer), { ...page, ...query, orderBy: 'updated_at', order: 'desc' });
  const names = await c.ctx.core.adminTeams.names([...new Set(found.rows.map((t) => t.teamId))]);
  const operators = await c.ctx.core.users.operators();
  const assignedChoices: Array<readonly [string, string]> = [['me', 'Me'], ['none', 'Nobody'], ...operators.map((o) => [String(o.id), operatorName(o)] as const)];
  const filters = filterForm(c.r, PATH, [
    ...TICKET_FILTER_FIELDS,
    { name: 'tenant_id', label: 'Tenant (id)', type: 'number' },
    { name: 'assigned', label: 'Assigned to', choices: assignedChoices },
  ]);
  const body = html`${filters}
    <p class="muted">${found.total} ticket${found.total === 1 ? '' : 's'} · <a href="/admin/support-settings">Support settings</a></p>
    ${ticketTable(PATH, found.rows, c.ctx, (t) => namedTeam(t.teamId, names), assigneeOf)} ${listPager(c.r, page, found.total)}`;
  return { kind: 'page', title: TITLE, body };
}

const assigneeOf = (t: Ticket): Html => html`${t.assignedTo ? operatorName(t.assignedTo) : html`<span class="muted">Nobody</span>`}`;

/** Who has the ticket, and the form that changes it (the REST route's use case). */
function assignForm(c: Call, t: Ticket, operators: readonly Operator[]): Html {
  const current = t.assignedTo?.id;
  return html`<form method="post" action="${PATH}/${t.id}/assign" class="card" id="assign-form">
    <h2>Assigned to</h2>
    ${formGuard(c.viewer)}
    <label for="assign-agent">Operator</label>
    <select id="assign-agent" name="agent_id">
      <option value="" ${current === undefined ? html`selected` : undefined}>Nobody</option>
      ${operators.map((o) => html`<option value="${o.id}" ${o.id === current ? html`selected` : undefined}>${operatorName(o)}</option>`)}
    </select>
    <button type="submit" id="assign-ticket">Assign</button>
  </form>`;
}

/** Assigns the ticket to the operator chosen, or to nobody; a refusal is the page's error. */
async function assign(c: Call): Promise<PageReply> {
  const id = idParam(c.r, 'id');
  const chosen = (c.form.get('agent_id') ?? '').trim();
  if (chosen !== '' && !/^[1-9]\d{0,14}$/.test(chosen)) throw pageError('invalid_request', 'Choose an operator, or nobody.');
  valueOrPageError(await c.ctx.core.supportTickets.assign(partyOf(c.viewer), id, chosen === '' ? null : Number(chosen), c.log));
  return { kind: 'redirect', status: 303, location: doneAt(`${PATH}/${id}`, 'assigned') };
}

function widgets(w: AccountWidgets): Html {
  return html`<aside class="card" aria-labelledby="account-heading" id="account-context">
    <h2 id="account-heading">The account</h2>
    ${figuresTable(
      `${w.team.name}: its context`,
      ['Figure', 'Value'],
      [
        ['Tenant', `${w.team.name} (${w.team.parentId === null ? 'account' : 'team'} ${w.team.id})`],
        ['Status', w.team.status],
        ['Plan', w.team.planType],
        ['Credits', w.balance],
        [`Sent, ${w.windowDays} days`, w.volume],
        ['Bounce rate', percent(w.bounceRate)],
        ['Complaint rate', percent(w.complaintRate)],
        ['Suppressions', w.suppressions],
        ['In the queue', w.queued],
        ['Open tickets', w.openTickets],
      ],
    )}
    <p><a href="/admin/tenants/${w.team.id}">The tenant’s page</a> · <a href="${PATH}?tenant_id=${w.team.id}">Its tickets</a></p>
  </aside>`;
}

async function ticketPage(c: Call, refused?: { messages: string[]; status: number; typed: string }): Promise<PageAnswer> {
  const view = await ticketOf(c);
  const t = view.ticket;
  const context = valueOrPageError(await c.ctx.core.supportWidgets.of(partyOf(c.viewer), t.id));
  const operators = await c.ctx.core.users.operators();
  const shape: TicketShape = { base: PATH, ctx: c.ctx };
  const body = html`${noticeOf(c.r, NOTICES)}
    <p><a href="${PATH}">All tickets</a></p>
    <div class="ticket-with-context">
      <div>
        ${ticketBody(shape, view)} ${replyForm(c, shape, t, refused)}
        <div class="card">
          <h2>Status</h2>
          ${statusAction(c, shape, t)}
        </div>
        ${assignForm(c, t, operators)}
      </div>
      ${widgets(context)}
    </div>`;
  return { kind: 'page', status: refused?.status, title: `Ticket #${t.id}: ${t.title}`, body };
}

const ONE = `${PATH}/:id`;
const write = (path: string, handle: (c: Call) => Promise<PageReply>, upload?: typeof ATTACHMENT_UPLOAD) =>
  operatorPage({ method: 'POST', path, title: TITLE, section: PATH, handle, upload });

export const ADMIN_SUPPORT_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: TITLE, handle: tickets }),
  operatorPage({ method: 'GET', path: ONE, title: 'Ticket', section: PATH, handle: (c) => ticketPage(c) }),
  operatorPage({ method: 'GET', path: `${ONE}/attachments/:attachment_id`, title: 'Ticket', section: PATH, handle: download }),
  write(`${ONE}/responses`, (c) => respond(c, PATH, (refused) => ticketPage(c, refused)), ATTACHMENT_UPLOAD),
  write(`${ONE}/close`, move(PATH, 'close')),
  write(`${ONE}/reopen`, move(PATH, 'reopen')),
  write(`${ONE}/assign`, assign),
];
