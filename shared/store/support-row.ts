// Support rows as both engines store them, decoded: tickets and responses read with their people joined
// (`opener_*`, `author_*`: null once the user is removed), attachments without their bytes.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import {
  AUTHOR_KINDS,
  FORWARD_KINDS,
  FORWARD_STATES,
  TICKET_STATUSES,
  VOTES,
  type Attachment,
  type SupportForward,
  type SupportDoc,
  type SupportPerson,
  type Ticket,
  type TicketResponse,
} from '../domain/support.js';

/** The columns a ticket is read with: its own, its opener's and its assignee's. */
export const TICKET_COLUMNS = 't.*, u.email AS opener_email, u.name AS opener_name, a.email AS assignee_email, a.name AS assignee_name';
export const TICKET_FROM = 'support_tickets t LEFT JOIN users u ON u.id = t.opened_by LEFT JOIN users a ON a.id = t.assigned_to';
export const RESPONSE_COLUMNS = 'r.*, u.email AS author_email, u.name AS author_name';
export const RESPONSE_FROM = 'support_responses r LEFT JOIN users u ON u.id = r.author_id';
export const ATTACHMENT_COLUMNS = 'id, uploaded_by, ticket_id, response_id, file_name, content_type, size, created_at';

const person = (id: number | null, email: string | null, name: string | null): SupportPerson | null =>
  id === null || email === null ? null : { id, email, name: name ?? '' };

const TicketRow = Type.Object({
  id: Int,
  team_id: Int,
  opened_by: Nullable(Int),
  opener_email: Nullable(Text),
  opener_name: Nullable(Text),
  title: Text,
  content: Text,
  product: Nullable(Text),
  priority: Text,
  status: OneOf(TICKET_STATUSES),
  assigned_to: Nullable(Int),
  assignee_email: Nullable(Text),
  assignee_name: Nullable(Text),
  response_count: Int,
  closed_by: Nullable(Int),
  closed_at: Nullable(Text),
  created_at: Text,
  updated_at: Text,
});

export const decodeTicket = rowDecoder('support ticket', TicketRow, (r): Ticket => ({
  id: r.id,
  teamId: r.team_id,
  openedBy: person(r.opened_by, r.opener_email, r.opener_name),
  title: r.title,
  content: r.content,
  product: r.product,
  priority: r.priority,
  status: r.status,
  assignedTo: person(r.assigned_to, r.assignee_email, r.assignee_name),
  responseCount: r.response_count,
  closedBy: r.closed_by,
  closedAt: r.closed_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));

const ResponseRow = Type.Object({
  id: Int,
  ticket_id: Int,
  author_id: Nullable(Int),
  author_email: Nullable(Text),
  author_name: Nullable(Text),
  author_kind: OneOf(AUTHOR_KINDS),
  content: Text,
  feedback: Nullable(OneOf(VOTES)),
  created_at: Text,
});

export const decodeResponse = rowDecoder('support response', ResponseRow, (r): TicketResponse => ({
  id: r.id,
  ticketId: r.ticket_id,
  author: person(r.author_id, r.author_email, r.author_name),
  authorKind: r.author_kind,
  content: r.content,
  feedback: r.feedback,
  createdAt: r.created_at,
}));

const AttachmentRow = Type.Object({
  id: Int,
  uploaded_by: Nullable(Int),
  ticket_id: Nullable(Int),
  response_id: Nullable(Int),
  file_name: Text,
  content_type: Text,
  size: Int,
  created_at: Text,
});

export const decodeAttachment = rowDecoder('support attachment', AttachmentRow, (r): Attachment => ({
  id: r.id,
  uploadedBy: r.uploaded_by,
  ticketId: r.ticket_id,
  responseId: r.response_id,
  fileName: r.file_name,
  contentType: r.content_type,
  size: r.size,
  createdAt: r.created_at,
}));

const DocRow = Type.Object({ id: Int, title: Text, link: Text, created_at: Text });

export const decodeDoc = rowDecoder('support doc', DocRow, (r): SupportDoc => ({ id: r.id, title: r.title, link: r.link, createdAt: r.created_at }));

/** The platform setting holding where tickets go. */
export const SUPPORT_SETTINGS = 'support.api_settings';

export const FORWARD_COLUMNS = 'id, kind, ticket_id, response_id, state, attempts, next_attempt_at, last_error, created_at';

export const decodeForward = rowDecoder(
  'support forward',
  Type.Object({
    id: Int,
    kind: OneOf(FORWARD_KINDS),
    ticket_id: Int,
    response_id: Nullable(Int),
    state: OneOf(FORWARD_STATES),
    attempts: Int,
    next_attempt_at: Text,
    last_error: Nullable(Text),
    created_at: Text,
  }),
  (r): SupportForward => ({
    id: r.id,
    kind: r.kind,
    ticketId: r.ticket_id,
    responseId: r.response_id,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    createdAt: r.created_at,
  }),
);
