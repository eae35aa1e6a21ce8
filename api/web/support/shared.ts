// What the support pages of an account's users (/support) and of the operators (/admin/support) share: the viewer
// as a party to tickets, a ticket with its responses and files, the reply form (a message and a file), and the
// writes both sides make (answer, close, re-open, download a file). Every write is the core's use case
// (core.supportTickets, core.supportAttachments), the same the REST routes call; a refusal is said in the form's
// words (web/errors.ts) or as the page's error.
import type { SupportParty } from '../../../shared/core/support/party.js';
import type { TicketView } from '../../../shared/core/support/tickets.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';
import type { Attachment, Ticket, TicketResponse } from '../../../shared/domain/support.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor, valueOrPageError } from '../errors.js';
import { formGuard } from '../layout.js';
import type { PageCall } from '../page.js';
import { actionButton, badge, doneAt, formErrors, table, when, type Tone } from '../parts.js';
import { idParam, type FilterField } from '../lists.js';
import type { PageReply } from '../reply.js';
import type { Viewer } from '../viewer.js';
import { dispositionOf } from '../../presenters/content-disposition.js';

/** The file input of a ticket's and a response's form. */
/** The ticket lists' filter, the same on the users' and the operators' pages. */
export const TICKET_FILTER_FIELDS: readonly FilterField[] = [
  {
    name: 'filter_type',
    label: 'Show',
    choices: [
      ['open', 'Open tickets'],
      ['closed', 'Closed tickets'],
      ['all', 'All tickets'],
    ],
  },
  { name: 'search', label: 'Title or text contains' },
];

export const FILE_FIELD = 'attachment';

/** A page taking the support forms' file: the core's size limit. */
export const ATTACHMENT_UPLOAD = { field: FILE_FIELD, maxBytes: (ctx: AppContext) => ctx.core.supportAttachments.maxBytes };

/** The forms' fields as they are labelled, for a refusal said in their words. */
export const SUPPORT_LABELS = {
  title: 'Title',
  content: 'Message',
  product_id: 'Product',
  client_priority: 'Priority',
  attachments: 'Attachment',
  file: 'Attachment',
} as const;

export const NOTICES = {
  opened: 'Your ticket is opened: the platform’s operators answer it here, and you are mailed when they do.',
  answered: 'Your response is added.',
  closed: 'The ticket is closed.',
  reopened: 'The ticket is open again.',
  liked: 'Thank you: your vote is saved.',
  disliked: 'Thank you: your vote is saved.',
  vote_removed: 'Your vote is removed.',
};

/** The viewer as a party to tickets: an account's user on the team it acts on, or an operator. */
export const partyOf = (v: Viewer): SupportParty => (v.kind === 'operator' ? { kind: 'agent', operator: v.user } : { kind: 'customer', user: v.user, team: v.acting });

const TONES: Readonly<Record<Ticket['status'], Tone>> = { new: 'pending', active: 'good', closed: 'bad' };
const STATUS_LABELS: Readonly<Record<Ticket['status'], string>> = { new: 'New', active: 'Active', closed: 'Closed' };

export const ticketStatus = (t: Ticket): Html => badge(STATUS_LABELS[t.status], TONES[t.status]);

/** A product's or priority's title from the portal's configuration (its id when no longer configured). */
export function choiceTitle(choices: ReadonlyArray<{ id: string; title: string }>, id: string | null): string {
  if (id === null) return '—';
  return choices.find((c) => c.id === id)?.title ?? id;
}

/** The problems of a refused form in its words, and its status; a refusal of another kind is thrown as the page's error. */
export function formRefusal(refusal: ManagementRefusal): { messages: string[]; status: number } {
  const messages = managementProblems(refusal, SUPPORT_LABELS);
  if (!messages) throw pageErrorFor(refusal);
  return { messages, status: pageErrorFor(refusal).status };
}

/** The ticket the URL names (`:id`), as the party may see it; another team's is a missing page (404). */
export async function ticketOf(c: PageCall<Viewer>): Promise<TicketView> {
  return valueOrPageError(await c.ctx.core.supportTickets.get(partyOf(c.viewer), idParam(c.r, 'id')));
}

const sizeText = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;

function fileList(base: string, files: readonly Attachment[]): Html | undefined {
  if (files.length === 0) return undefined;
  return html`<ul class="attachments">
    ${files.map((a) => html`<li><a href="${base}/${a.ticketId ?? 0}/attachments/${a.id}" download>${a.fileName}</a> <span class="muted">(${a.contentType}, ${sizeText(a.size)})</span></li>`)}
  </ul>`;
}

export interface TicketShape {
  /** Where the party's tickets are (/support/tickets or /admin/support): the ticket is at `${base}/${id}`. */
  base: string;
  /** The votes of an account's user on an operator's response (owners and admins). */
  votes?: (r: TicketResponse) => Html | undefined;
  /** The products and priorities configured. */
  ctx: AppContext;
}

function responseItem(s: TicketShape, r: TicketResponse, files: readonly Attachment[]): Html {
  const who = r.author?.name || (r.authorKind === 'agent' ? 'An operator' : 'A removed user');
  return html`<li class="card response ${r.authorKind}" id="response-${r.id}">
    <p><strong>${who}</strong> ${r.authorKind === 'agent' ? badge('Operator', 'good') : undefined} <span class="muted">${when(r.createdAt)}</span></p>
    <div class="message">${r.content}</div>
    ${fileList(s.base, files)} ${s.votes?.(r)}
  </li>`;
}

/** The ticket: its facts, its own message and files, then every response, oldest first. */
export function ticketBody(s: TicketShape, view: TicketView): Html {
  const t = view.ticket;
  const portal = s.ctx.core.supportPortal.config();
  const own = view.attachments.filter((a) => a.responseId === null);
  return html`<dl class="facts">
      <dt>Status</dt>
      <dd id="ticket-status">${ticketStatus(t)}${t.closedAt ? html` <span class="muted">on ${when(t.closedAt)}</span>` : undefined}</dd>
      <dt>Product</dt>
      <dd>${choiceTitle(portal.products, t.product)}</dd>
      <dt>Priority</dt>
      <dd>${choiceTitle(portal.priorities, t.priority)}</dd>
      <dt>Opened</dt>
      <dd>${when(t.createdAt)} by ${t.openedBy?.name || t.openedBy?.email || 'a removed user'}</dd>
    </dl>
    <section aria-labelledby="conversation-heading">
      <h2 id="conversation-heading">Conversation</h2>
      <ol class="conversation">
        <li class="card response customer" id="ticket-message">
          <p><strong>${t.openedBy?.name || t.openedBy?.email || 'A removed user'}</strong> <span class="muted">${when(t.createdAt)}</span></p>
          <div class="message">${t.content}</div>
          ${fileList(s.base, own)}
        </li>
        ${view.responses.map((r) =>
          responseItem(
            s,
            r,
            view.attachments.filter((a) => a.responseId === r.id),
          ),
        )}
      </ol>
    </section>`;
}

/** The file input of a ticket's or response's form, with what it takes. */
export function fileInput(ctx: AppContext, id: string): Html {
  const rules = ctx.core.supportPortal.config().attachments;
  return html`<label for="${id}">Attachment <span class="muted">(optional)</span></label>
    <input type="file" id="${id}" name="${FILE_FIELD}" aria-describedby="${id}-hint" />
    <p class="hint" id="${id}-hint">One file of type ${rules.types.join(', ')}, at most ${sizeText(rules.maxBytes)}.</p>`;
}

/** The reply form of a ticket that is not closed. */
export function replyForm(c: PageCall<Viewer>, s: TicketShape, t: Ticket, refused?: { messages: string[]; typed: string }): Html {
  if (t.status === 'closed') return html`<p class="muted" id="closed-note">The ticket is closed: re-open it to write again.</p>`;
  return html`<form method="post" action="${s.base}/${t.id}/responses" enctype="multipart/form-data" class="card">
    <h2>Reply</h2>
    ${formErrors(refused?.messages)} ${formGuard(c.viewer)}
    <label for="reply-content">Message</label>
    <textarea id="reply-content" name="content" rows="6" maxlength="20000" required>${refused?.typed ?? ''}</textarea>
    ${fileInput(c.ctx, 'reply-file')}
    <button type="submit" class="primary" id="send-reply">Send the reply</button>
  </form>`;
}

/** Close or re-open, as the ticket's status allows. */
export function statusAction(c: PageCall<Viewer>, s: TicketShape, t: Ticket): Html {
  return t.status === 'closed'
    ? actionButton(c.viewer, `${s.base}/${t.id}/reopen`, 'Re-open the ticket', { id: 'reopen-ticket' })
    : actionButton(c.viewer, `${s.base}/${t.id}/close`, 'Close the ticket', { id: 'close-ticket', confirm: 'Close this ticket?' });
}

/** Keeps the file sent with a form for the party's next ticket or response; its id, or the form's problems. */
export async function uploaded(c: PageCall<Viewer>, party: SupportParty): Promise<{ ok: true; ids: number[] } | { ok: false; refusal: ManagementRefusal }> {
  if (!c.file) return { ok: true, ids: [] };
  const kept = await c.ctx.core.supportAttachments.upload(party, c.file.fileName, c.file.content, c.log);
  return kept.ok ? { ok: true, ids: [kept.value.id] } : { ok: false, refusal: kept.refusal };
}

/** A response (with its file) to the ticket; the ticket page again with the form's problems when refused. */
export async function respond(
  c: PageCall<Viewer>,
  base: string,
  again: (refused: { messages: string[]; status: number; typed: string }) => Promise<PageReply>,
): Promise<PageReply> {
  const party = partyOf(c.viewer);
  const id = idParam(c.r, 'id');
  // The ticket first: another team's is a missing page, whatever the form holds.
  valueOrPageError(await c.ctx.core.supportTickets.find(party, id));
  const content = c.form.get('content') ?? '';
  const file = await uploaded(c, party);
  if (!file.ok) return again({ ...formRefusal(file.refusal), typed: content });
  const made = await c.ctx.core.supportTickets.respond(party, id, { content, attachmentIds: file.ids }, c.log);
  if (!made.ok) return again({ ...formRefusal(made.refusal), typed: content });
  return { kind: 'redirect', status: 303, location: doneAt(`${base}/${id}`, 'answered') };
}

/** Closes or re-opens the ticket (a refusal, such as closing a closed ticket, is the page's error). */
export const move = (base: string, to: 'close' | 'reopen') => async (c: PageCall<Viewer>) => {
  const id = idParam(c.r, 'id');
  const party = partyOf(c.viewer);
  valueOrPageError(to === 'close' ? await c.ctx.core.supportTickets.close(party, id, c.log) : await c.ctx.core.supportTickets.reopen(party, id, c.log));
  return { kind: 'redirect', status: 303, location: doneAt(`${base}/${id}`, to === 'close' ? 'closed' : 'reopened') } satisfies PageReply;
};

/** A file of a ticket the viewer may see: downloaded, and sandboxed if opened. */
export async function download(c: PageCall<Viewer>): Promise<PageReply> {
  const found = valueOrPageError(await c.ctx.core.supportAttachments.download(partyOf(c.viewer), idParam(c.r, 'id'), idParam(c.r, 'attachment_id')));
  return {
    kind: 'file',
    contentType: found.attachment.contentType,
    body: found.content,
    headers: { 'Content-Disposition': dispositionOf(found.attachment.fileName), 'Content-Length': String(found.content.length), 'Content-Security-Policy': 'sandbox' },
  };
}

/** The list's table of tickets; `tenant` adds the team's column and `assignee` who has the ticket (the operator's list). */
export function ticketTable(base: string, rows: readonly Ticket[], ctx: AppContext, tenant?: (t: Ticket) => Html, assignee?: (t: Ticket) => Html): Html {
  const portal = ctx.core.supportPortal.config();
  const head = ['Title', ...(tenant ? ['Tenant'] : []), ...(assignee ? ['Assigned to'] : []), 'Status', 'Priority', 'Responses', 'Updated'];
  return table(
    'Tickets, last updated first',
    head,
    rows.map(
      (t) =>
        html`<tr>
          <th scope="row"><a href="${base}/${t.id}">#${t.id} ${t.title}</a></th>
          ${tenant ? html`<td>${tenant(t)}</td>` : undefined} ${assignee ? html`<td>${assignee(t)}</td>` : undefined}
          <td>${ticketStatus(t)}</td>
          <td>${choiceTitle(portal.priorities, t.priority)}</td>
          <td class="number">${t.responseCount}</td>
          <td>${when(t.updatedAt)}</td>
        </tr>`,
    ),
    'No ticket matches.',
  );
}
