// The account's support pages (/support): its team's tickets (open, closed or all, searched), opening one (title,
// message, product, priority from the portal's configuration, a file), and a ticket's page (its responses and
// files, a reply, like or dislike an operator's response, close and re-open). The operators' answers mail a link
// to /support/tickets/{id} (core/support/response-mail.ts). The same use cases as the REST routes
// (http/dashboard/support-routes.ts): a viewer reads, an owner or admin writes; another team's ticket is 404.
import { TICKET_FILTERS, VOTES, type TicketResponse } from '../../../shared/domain/support.js';
import type { TicketView } from '../../../shared/core/support/tickets.js';
import { html, type Html } from '../html.js';
import { pageError, valueOrPageError } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { doneAt, formErrors, noticeOf } from '../parts.js';
import { choiceQuery, filterForm, idParam, listPage, listPager, textQuery } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';
import {
  ATTACHMENT_UPLOAD,
  download,
  fileInput,
  formRefusal,
  move,
  NOTICES,
  partyOf,
  replyForm,
  respond,
  statusAction,
  ticketBody,
  ticketOf,
  ticketTable,
  TICKET_FILTER_FIELDS,
  uploaded,
  type TicketShape,
} from './shared.js';
import { checkTicket } from '../../../shared/core/support/ticket-fields.js';

export const SUPPORT_PATH = '/support';
const TICKETS = `${SUPPORT_PATH}/tickets`;
const NEW_TICKET = `${TICKETS}/new`;
const TITLE = 'Support';

type Call = PageCall<AccountViewer>;

async function tickets(c: Call): Promise<PageReply> {
  const query = {
    filterType: choiceQuery(c.r, 'filter_type', 'Show', TICKET_FILTERS) ?? 'all',
    search: textQuery(c.r, 'search', 'The text searched', 200),
  };
  const page = listPage(c.ctx, c.r);
  const found = await c.ctx.core.supportTickets.list(partyOf(c.viewer), { ...page, ...query, orderBy: 'updated_at', order: 'desc' });
  const filters = filterForm(c.r, SUPPORT_PATH, [...TICKET_FILTER_FIELDS]);
  const writer = viewerMay(c.ctx, c.viewer, 'write');
  const body = html`${noticeOf(c.r, NOTICES)}
    <p class="hint">Ask the platform’s operators about sending, domains or billing. Each ticket is your team’s: its users follow it here.</p>
    ${
      writer
        ? html`<p><a class="button primary" href="${NEW_TICKET}" id="new-ticket">Open a ticket</a></p>`
        : html`<p class="muted">Your role lets you read the team’s tickets, not open them.</p>`
    }
    ${filters}
    <p class="muted">${found.total} ticket${found.total === 1 ? '' : 's'}</p>
    ${ticketTable(TICKETS, found.rows, c.ctx)} ${listPager(c.r, page, found.total)}`;
  return { kind: 'page', title: TITLE, body };
}

interface Typed {
  title: string;
  content: string;
  product: string;
  priority: string;
}

function newTicketPage(c: Call, refused?: { messages: string[]; status: number; typed: Typed }): PageAnswer {
  const portal = c.ctx.core.supportPortal.config();
  const typed = refused?.typed;
  const priority = typed?.priority ?? portal.defaultPriority;
  const body = html`<p><a href="${SUPPORT_PATH}">All tickets</a></p>
    <form method="post" action="${TICKETS}" enctype="multipart/form-data" class="card">
      ${formErrors(refused?.messages)} ${formGuard(c.viewer)}
      <label for="ticket-title">Title</label>
      <input type="text" id="ticket-title" name="title" value="${typed?.title ?? ''}" maxlength="200" required />
      <label for="ticket-content">Message</label>
      <textarea id="ticket-content" name="content" rows="8" maxlength="20000" required>${typed?.content ?? ''}</textarea>
      <label for="ticket-product">Product</label>
      <select id="ticket-product" name="product_id">
        <option value="">None in particular</option>
        ${portal.products.map((p) => html`<option value="${p.id}" ${typed?.product === p.id ? html`selected` : undefined}>${p.title}</option>`)}
      </select>
      <label for="ticket-priority">Priority</label>
      <select id="ticket-priority" name="client_priority">
        ${portal.priorities.map((p) => html`<option value="${p.id}" ${priority === p.id ? html`selected` : undefined}>${p.title}</option>`)}
      </select>
      ${fileInput(c.ctx, 'ticket-file')}
      <button type="submit" class="primary" id="open-ticket">Open the ticket</button>
    </form>`;
  return { kind: 'page', status: refused?.status, title: 'Open a ticket', body };
}

async function openTicket(c: Call): Promise<PageReply> {
  const typed: Typed = {
    title: c.form.get('title') ?? '',
    content: c.form.get('content') ?? '',
    product: c.form.get('product_id') ?? '',
    priority: c.form.get('client_priority') ?? '',
  };
  const input = { title: typed.title, content: typed.content, product: typed.product || undefined, priority: typed.priority || undefined, attachmentIds: [] };
  const party = partyOf(c.viewer);
  // The fields are checked before the file is kept, so a refused form leaves no file behind.
  const checked = checkTicket(c.ctx.config, input);
  if (!checked.ok) return newTicketPage(c, { ...formRefusal(checked.refusal), typed });
  const file = await uploaded(c, party);
  if (!file.ok) return newTicketPage(c, { ...formRefusal(file.refusal), typed });
  const made = await c.ctx.core.supportTickets.open(party, { ...input, attachmentIds: file.ids }, c.log);
  if (!made.ok) return newTicketPage(c, { ...formRefusal(made.refusal), typed });
  return { kind: 'redirect', status: 303, location: doneAt(`${TICKETS}/${made.value.id}`, 'opened') };
}

/** Like and dislike on an operator's response: the vote held is pressed; the same vote again removes it. */
function votes(c: Call, ticketId: number) {
  return (r: TicketResponse): Html | undefined => {
    if (r.authorKind !== 'agent') return undefined;
    if (!viewerMay(c.ctx, c.viewer, 'write'))
      return r.feedback ? html`<p class="muted">The team found this ${r.feedback === 'like' ? 'helpful' : 'unhelpful'}.</p>` : undefined;
    const button = (vote: 'like' | 'dislike', label: string) =>
      html`<button type="submit" name="vote" value="${vote}" class="small" id="${vote}-${r.id}" aria-pressed="${r.feedback === vote ? 'true' : 'false'}">
        ${label}
      </button>`;
    return html`<form method="post" action="${TICKETS}/${ticketId}/responses/${r.id}/vote" class="inline votes" aria-label="Was this answer helpful?">
      ${formGuard(c.viewer)}<span class="muted">Helpful?</span> ${button('like', 'Like')} ${button('dislike', 'Dislike')}
    </form>`;
  };
}

async function ticketPage(c: Call, refused?: { messages: string[]; status: number; typed: string }): Promise<PageAnswer> {
  const view: TicketView = await ticketOf(c);
  const t = view.ticket;
  const shape: TicketShape = { base: TICKETS, ctx: c.ctx, votes: votes(c, t.id) };
  const writer = viewerMay(c.ctx, c.viewer, 'write');
  const body = html`${noticeOf(c.r, NOTICES)}
    <p><a href="${SUPPORT_PATH}">All tickets</a></p>
    ${ticketBody(shape, view)} ${writer ? replyForm(c, shape, t, refused) : undefined}
    ${
      writer
        ? html`<div class="card">
            <h2>Status</h2>
            ${statusAction(c, shape, t)}
          </div>`
        : undefined
    }`;
  return { kind: 'page', status: refused?.status, title: `Ticket #${t.id}: ${t.title}`, body };
}

async function vote(c: Call): Promise<PageReply> {
  const id = idParam(c.r, 'id');
  const given = c.form.get('vote') ?? '';
  if (!(VOTES as readonly string[]).includes(given)) throw pageError('invalid_request', 'Choose like or dislike.');
  const voted = valueOrPageError(await c.ctx.core.supportTickets.vote(partyOf(c.viewer), id, idParam(c.r, 'response_id'), given as 'like' | 'dislike'));
  const code = voted.feedback === null ? 'vote_removed' : voted.feedback === 'like' ? 'liked' : 'disliked';
  return { kind: 'redirect', status: 303, location: `${doneAt(`${TICKETS}/${id}`, code)}#response-${voted.responseId}` };
}

const ONE = `${TICKETS}/:id`;
const write = (path: string, handle: (c: Call) => Promise<PageReply>, upload?: typeof ATTACHMENT_UPLOAD) =>
  accountPage({ method: 'POST', path, title: TITLE, section: SUPPORT_PATH, access: 'write', handle, upload });

export const SUPPORT_PAGES = [
  accountPage({ method: 'GET', path: SUPPORT_PATH, title: TITLE, access: 'read', handle: tickets }),
  accountPage({ method: 'GET', path: NEW_TICKET, title: 'Open a ticket', section: SUPPORT_PATH, access: 'write', handle: (c) => Promise.resolve(newTicketPage(c)) }),
  write(TICKETS, openTicket, ATTACHMENT_UPLOAD),
  accountPage({ method: 'GET', path: ONE, title: 'Ticket', section: SUPPORT_PATH, access: 'read', handle: (c) => ticketPage(c) }),
  accountPage({ method: 'GET', path: `${ONE}/attachments/:attachment_id`, title: 'Ticket', section: SUPPORT_PATH, access: 'read', handle: download }),
  write(`${ONE}/responses`, (c) => respond(c, TICKETS, (refused) => ticketPage(c, refused)), ATTACHMENT_UPLOAD),
  write(`${ONE}/close`, move(TICKETS, 'close')),
  write(`${ONE}/reopen`, move(TICKETS, 'reopen')),
  write(`${ONE}/responses/:response_id/vote`, vote),
];
