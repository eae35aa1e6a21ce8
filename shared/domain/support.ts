// Support tickets between an account's users (customers) and the platform's operators (agents), as Fluent
// Support's customer portal has them: a ticket opened by a user on the team it acts on, its responses from either
// side, a customer's like or dislike of an agent's response, files attached, and the docs operators suggest.

/** new: no agent has answered yet; active: an agent answered (or it was re-opened); closed. */
export const TICKET_STATUSES = ['new', 'active', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** What a list asks for: tickets not closed, closed ones, or every one. */
export const TICKET_FILTERS = ['open', 'closed', 'all'] as const;
export type TicketFilterType = (typeof TICKET_FILTERS)[number];

export const TICKET_ORDER_BY = ['id', 'created_at', 'updated_at'] as const;
export type TicketOrderBy = (typeof TICKET_ORDER_BY)[number];

/** Who wrote a response: the account's side or the platform's. */
export const AUTHOR_KINDS = ['customer', 'agent'] as const;
export type AuthorKind = (typeof AUTHOR_KINDS)[number];

export const VOTES = ['like', 'dislike'] as const;
export type Vote = (typeof VOTES)[number];

/** A user as a ticket names it; null once the user is removed. */
export interface SupportPerson {
  id: number;
  email: string;
  name: string;
}

export interface Ticket {
  id: number;
  /** The team the ticket was opened on: its users see it, no other team's do. */
  teamId: number;
  openedBy: SupportPerson | null;
  title: string;
  content: string;
  /** A product id of the portal's configuration, or null. */
  product: string | null;
  priority: string;
  status: TicketStatus;
  /** The operator the ticket is assigned to; null: none (or the operator was removed). */
  assignedTo: SupportPerson | null;
  responseCount: number;
  closedBy: number | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TicketResponse {
  id: number;
  ticketId: number;
  author: SupportPerson | null;
  authorKind: AuthorKind;
  content: string;
  /** The customer's vote on an agent's response, or null. */
  feedback: Vote | null;
  createdAt: string;
}

/** A file uploaded for a ticket: its bytes are read only to download it. */
export interface Attachment {
  id: number;
  uploadedBy: number | null;
  /** Null until the ticket or response it was uploaded for is sent. */
  ticketId: number | null;
  responseId: number | null;
  fileName: string;
  contentType: string;
  size: number;
  createdAt: string;
}

/** A page of the docs operators keep, suggested to a user writing a ticket. */
export interface SupportDoc {
  id: number;
  title: string;
  link: string;
  createdAt: string;
}

/** Where tickets go: kept in Tern, and optionally forwarded to an external helpdesk (not built yet: stored only). */
export interface SupportSettings {
  forwardUrl: string | null;
  /** The forwarding signing secret, sealed by the secret box (null: no URL); never shown after it is issued. */
  forwardSecretEnc: string | null;
  updatedAt: string | null;
}

/** What a forwarded message says happened: a ticket was opened, or a response was added to one. */
export const FORWARD_KINDS = ['ticket.created', 'ticket.response'] as const;
export type ForwardKind = (typeof FORWARD_KINDS)[number];
/** pending (an attempt is due at nextAttemptAt), delivered, or failed (attempts or age ran out). */
export const FORWARD_STATES = ['pending', 'delivered', 'failed'] as const;
export type ForwardState = (typeof FORWARD_STATES)[number];

/** One ticket or response to forward to the external helpdesk (the outbox row). */
export interface SupportForward {
  id: number;
  kind: ForwardKind;
  ticketId: number;
  /** The response forwarded (ticket.response), else null. */
  responseId: number | null;
  state: ForwardState;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
}
