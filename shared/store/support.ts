// The support repository: tickets, their responses, customers' votes on agents' responses, attachments (their
// bytes kept in the database), the docs operators suggest, and where tickets go (a platform setting). Every
// change a race could spoil is decided in its write: a response or a status move fenced on the ticket's status,
// a vote toggled in one UPDATE, attachments bound only while unbound and the uploader's.
import type {
  Attachment,
  AuthorKind,
  SupportDoc,
  SupportForward,
  SupportSettings,
  Ticket,
  TicketFilterType,
  TicketOrderBy,
  TicketResponse,
  Vote,
} from '../domain/support.js';
import type { NewAuditEntry } from './audit-log.js';
import type { PageOf, PageRequest } from './paging.js';

export interface NewTicket {
  teamId: number;
  openedBy: number;
  title: string;
  content: string;
  product: string | null;
  priority: string;
  /** Attachments the opener uploaded and has not sent yet, bound to the ticket with it. */
  attachmentIds: readonly number[];
  /** Forwarding is on (the core read the setting): an outbox row is written in the ticket's transaction. */
  forward: boolean;
}

export interface TicketFilter {
  /** Only this team's tickets (a customer's); undefined: every team's (an agent's). */
  teamId?: number;
  status: TicketFilterType;
  /** Part of the title or the content, matched literally, case folded. */
  search?: string;
  orderBy: TicketOrderBy;
  order: 'asc' | 'desc';
  /** Only tickets assigned to this operator, or to none; undefined: either. */
  assigned?: number | 'none';
}

export interface NewResponse {
  ticketId: number;
  /** The customer's team: the ticket must be on it. Undefined for an agent. */
  teamId?: number;
  authorId: number;
  authorKind: AuthorKind;
  content: string;
  attachmentIds: readonly number[];
  /** Forwarding is on: an outbox row is written in the response's transaction. */
  forward: boolean;
}

/** How one forwarding attempt ended: delivered, due again at `at`, or given up. */
export type ForwardOutcome = { kind: 'delivered' } | { kind: 'retry'; at: string; error: string } | { kind: 'failed'; error: string };

export interface NewAttachment {
  uploadedBy: number;
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** Why a write on a ticket did nothing. */
export type TicketMiss = 'not_found' | 'closed' | 'not_closed' | 'attachment_unknown';

export interface SupportRepository {
  /** Opens a ticket (status new) with the opener's unsent attachments; none of them may be missing. */
  openTicket(t: NewTicket): Promise<Ticket | 'attachment_unknown'>;
  /** A ticket; with `teamId`, only when it is that team's. */
  getTicket(id: number, teamId?: number): Promise<Ticket | undefined>;
  listTickets(f: TicketFilter, page: PageRequest): Promise<PageOf<Ticket>>;
  /** A ticket's responses, oldest first. */
  responsesOf(ticketId: number): Promise<TicketResponse[]>;
  /**
   * Adds a response to a ticket that is not closed, in one transaction with the ticket's move (an agent's
   * response makes it active) and the audit entry `audit` makes of it (null: none).
   */
  respond(r: NewResponse, audit: ((response: TicketResponse) => NewAuditEntry) | null): Promise<TicketResponse | TicketMiss>;
  /**
   * Closes (to 'closed') or re-opens (to 'active') a ticket, fenced on its status: closing a closed ticket or
   * re-opening an open one is a miss. `audit` makes the entry committed with the move.
   */
  moveTicket(
    id: number,
    teamId: number | undefined,
    to: 'closed' | 'active',
    byUserId: number,
    audit: ((before: Ticket, after: Ticket) => NewAuditEntry) | null,
  ): Promise<Ticket | TicketMiss>;
  /**
   * Assigns the ticket to the operator `agentId` (null: unassigns it), in one UPDATE that holds only while that
   * user is an operator, with the audit entry `audit` makes of the ticket before and after.
   */
  assignTicket(id: number, agentId: number | null, audit: (before: Ticket, after: Ticket) => NewAuditEntry): Promise<Ticket | 'not_found' | 'not_operator'>;
  /**
   * The customer's vote on an agent's response of the ticket: set, changed, or removed when the same vote is
   * given again, in one UPDATE. The vote now held (null: none), or not_found (no such agent response).
   */
  vote(ticketId: number, responseId: number, vote: Vote): Promise<{ feedback: Vote | null } | 'not_found'>;
  /** Keeps an uploaded file, bound to nothing until a ticket or a response is sent with it. */
  addAttachment(a: NewAttachment): Promise<Attachment>;
  /** Removes the uploads never sent with a ticket or response, uploaded before `before` (ISO); how many. */
  removeUnsent(before: string): Promise<number>;
  /** A ticket's attachments, oldest first. */
  attachmentsOf(ticketId: number): Promise<Attachment[]>;
  /** One attachment of the ticket with its bytes. */
  attachmentContent(ticketId: number, attachmentId: number): Promise<{ attachment: Attachment; content: Buffer } | undefined>;
  /** Adds a doc; `audit` makes the entry committed with it. */
  addDoc(title: string, link: string, createdBy: number | null, audit: ((doc: SupportDoc) => NewAuditEntry) | null): Promise<SupportDoc>;
  /** Docs whose title holds `search` (case folded), at most `limit`, newest first. */
  searchDocs(search: string, limit: number): Promise<SupportDoc[]>;
  settings(): Promise<SupportSettings>;
  /** Stores where tickets go, with the audit entry made of the settings before and after. */
  saveSettings(
    next: Omit<SupportSettings, 'updatedAt'>,
    byUserId: number | null,
    audit: (before: SupportSettings, after: SupportSettings) => NewAuditEntry,
  ): Promise<SupportSettings>;
  /**
   * Leases up to `limit` pending forwards due by `now` to `token` until `leaseUntil`, each UPDATE fenced on the
   * lease (none, or run out), so two dispatchers never hold one row at once; oldest first.
   */
  claimForwards(limit: number, now: string, leaseUntil: string, token: string): Promise<SupportForward[]>;
  /** Records an attempt's outcome and gives the lease back, only while `token` holds it (false: taken over). */
  finishForward(id: number, token: string, outcome: ForwardOutcome): Promise<boolean>;
  /** A ticket's forwards (its own and its responses'), oldest first. */
  forwardsOf(ticketId: number): Promise<SupportForward[]>;
}
