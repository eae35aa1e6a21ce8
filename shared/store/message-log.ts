// The message log repository: accepted messages with their recipients (recorded by the intake with their credits,
// through the unit of work: shared/intake/record.ts), read back by id and listed newest first with filters and a
// word search.
import type { MessageStatus, RecipientState } from '../domain/queue-state.js';
import type { DeliveryAttempt, LoggedRecipient, MessageLogDetail, MessageLogEntry, NumberedLogEntry, RecipientKind } from '../domain/message-log.js';
import type { PageOf, PageRequest } from './paging.js';
import type { FigureBump } from '../domain/figures.js';

export interface NewRecipient {
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: Extract<RecipientState, 'queued' | 'suppressed' | 'failed'>;
  reason: string;
}

/** A message as the intake records it: the log's fields it is listed with, plus what only recording needs. */
export interface NewMessage extends Omit<MessageLogEntry, 'error' | 'sentAt' | 'createdAt' | 'updatedAt'> {
  // status: the one its recipients' first states give it (domain/queue-state.ts messageStatusOf), set by the intake.
  /** The payer paying for it (domain/team.ts payerIdOf): its account, or the team itself when it has credits of its own. */
  payerId: number;
  headers: Record<string, string>;
  recipients: NewRecipient[];
  /** The message as it will be signed and sent, kept until no recipient is left in flight (not kept: null). */
  body: Buffer | null;
  /** Credits taken from the payer's balance: one per recipient that will be sent. */
  cost: number;
  /** Set when no recipient can be sent: why the message failed. */
  error: string | null;
  /** The figure counts its recipients start in (domain/figures.ts figuresOfNew), counted with the message. */
  figures: readonly FigureBump[];
}

/** The queued recipients and when each is due (epoch ms), or the refusal when the account cannot pay. */
export type InsertOutcome = Array<{ id: number; due: number }> | 'insufficient_balance';

export interface MessageQuery extends PageRequest {
  status?: MessageStatus;
  domainId?: string;
  /** Inclusive bounds of created_at, as ISO 8601 UTC with milliseconds (what toISOString() gives). */
  from?: string;
  to?: string;
  /**
   * Words looked for as whole words in the subject, the sender and the recipients (all of them must match);
   * a word typed with a trailing `*` matches as a prefix. Plain text: no operator of any engine.
   */
  search?: string;
  /**
   * A search counts its matches up to this many (the paging depth): an exact count would visit every match
   * in the whole log, while no page beyond this many records can be asked for anyway.
   */
  searchCountLimit: number;
}

export interface MessageLogRepository {
  /** A message, of the given team when one is given. */
  get(id: string, teamId?: number): Promise<MessageLogDetail | undefined>;
  /** A message's body, while any of its recipients is in flight. */
  body(id: string): Promise<Buffer | undefined>;
  /** How many recipients each message has. */
  recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>>;
  /** A message's recipients, in the order they were given. */
  recipientsOf(messageId: string): Promise<LoggedRecipient[]>;
  /** Every delivery attempt of a message's recipients, oldest first. */
  attemptsOf(messageId: string): Promise<DeliveryAttempt[]>;
  /** A message by its number (NumberedLogEntry.logId), of any team. */
  getByLogId(logId: number): Promise<MessageLogDetail | undefined>;
  /**
   * One page of a team's log, or of every team's (null: the platform operators'), newest first (by created_at),
   * and its total (see MessageQuery.searchCountLimit). Across teams a domain filter must come with its team.
   */
  list(teamId: number | null, query: MessageQuery): Promise<PageOf<NumberedLogEntry>>;
  /** Every recipient by state, history included: a scan of the whole log, for tests and one-off checks. */
  countByState(): Promise<Record<string, number>>;
}
