// The unit of work: narrow row operations bound to one transaction, for the writes whose effects the queue
// module decides (shared/queue/): a delivery result, a bounce or complaint report, a purge, a requeue. The engine
// carries out each operation as it is asked; which ones to ask for, and with what, is decided above it
// (domain/outcome.ts names the effects). Every move of a recipient is conditional in its own statement (on the
// lease token and state, or on the state it was read in) and answers what moved: what did not is refused.
import type { DomainCounter } from '../domain/outcome.js';
import type { DepthBump, FigureBump, FigureState } from '../domain/figures.js';
import type { MessageStatus, RecipientState } from '../domain/queue-state.js';
import type { NewAuditEntry } from './audit-log.js';
import type { NewSuppression } from './suppressions.js';
import type { NewMessage } from './message-log.js';
import type { QueueSelector } from './queue-control.js';

/** An attempt result's move: made only while the recipient is `sending` under `leaseToken`. */
export interface LeasedMove {
  id: number;
  leaseToken: string;
  to: Extract<RecipientState, 'sent' | 'deferred' | 'bounced' | 'failed'>;
  /** The remote server's reply, kept as the last reply. */
  reply: string;
  /** The reason the log shows ('' for a delivery). */
  reason: string;
  /** Epoch ms of the next attempt (deferred only). */
  nextAttemptAt: number | null;
  /** The hard-bounce mark to set; null leaves it. */
  hardBounce: boolean | null;
}

/** A recipient a write moved, with what it belongs to. */
export interface MovedRecipient {
  id: number;
  messageId: string;
  teamId: number;
  email: string;
  /** The sending domain of its message (null for system mail). */
  domainId: string | null;
  /** Whether a complaint is marked on it (the figures count it as complained whatever its state). */
  complained: boolean;
}

/** A recipient an operator's move took out of `from` (the state the statement that moved it was conditional on). */
export interface MovedFrom extends MovedRecipient {
  from: RecipientState;
}

/** A recipient as a report finds it. */
export interface RecipientAsFound extends MovedRecipient {
  state: RecipientState;
}

/** Where a recipient's lease stands now (for the log of a refused result). */
export interface LeaseNow {
  id: number;
  state: RecipientState;
  leaseToken: string | null;
}

export interface NewAttempt {
  recipientId: number;
  mxHost: string | null;
  ip: string | null;
  outcome: 'delivered' | 'deferred' | 'bounced' | 'failed';
  reply: string;
}

export interface RecipientRows {
  /** Moves each recipient only while it is `sending` under the move's token (in the statement); answers those moved. */
  moveIfLeased(moves: readonly LeasedMove[]): Promise<MovedRecipient[]>;
  /** Where these recipients' leases stand now. */
  leasesOf(ids: readonly number[]): Promise<LeaseNow[]>;
  addAttempts(attempts: readonly NewAttempt[]): Promise<void>;
  /** A recipient with its message's team and domain; undefined when there is none. */
  find(id: number): Promise<RecipientAsFound | undefined>;
  /**
   * Moves a recipient to `to` only while it is still in `from` (in the statement); `reason` replaces its reason
   * when given. Whether a complaint is marked on it as it moved; undefined when it did not move.
   */
  moveIfIn(id: number, from: RecipientState, to: RecipientState, reason: string | null): Promise<{ complained: boolean } | undefined>;
  /** Marks the recipient's complaint unless one is marked already: the state it was marked in, undefined when this call marked nothing. */
  markComplained(id: number): Promise<RecipientState | undefined>;
  setHardBounce(ids: readonly number[], hard: boolean): Promise<void>;
}

/** One of a domain's counters raised by `by`. */
export interface CounterBump {
  domainId: string;
  counter: DomainCounter;
  by: number;
}

/** An event for the team's webhooks about one recipient. */
export interface NewRecipientEvent {
  teamId: number;
  type: 'bounced' | 'complaint';
  messageId: string;
  recipientId: number;
  email: string;
  isHardBounce: boolean | null;
  reason: string;
}

/** A message's cost, taken from its payer by the key that sent it (null: Tern itself, as for a requeue). */
export interface PaidSend {
  messageId: string;
  cost: number;
  sendingKeyId: number | null;
}

export interface CreditRows {
  /** Gives back `count` credits per message to the payer its send entry took them from (messages with no send entry get none). */
  refund(countByMessage: ReadonlyMap<string, number>): Promise<void>;
  /** The payer that paid each message's send entry (messages with none are absent: they were free). */
  payersOf(messageIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Takes each message's cost from `payerId`, all or none (the balance condition is in the statement), with one
   * send entry per message naming the key that sent it (none: Tern); false, and nothing written, when the balance is short.
   */
  debitSends(payerId: number, sends: readonly PaidSend[]): Promise<boolean>;
  balanceOf(payerId: number): Promise<number>;
}

export interface SuppressionRows {
  /** Adds or raises each team's entries (a stronger status is never lowered). */
  upsert(entries: ReadonlyArray<NewSuppression & { teamId: number }>): Promise<void>;
  /** Which of `emails` (lower case) are on the team's list. */
  listedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>>;
}

export interface OutboxRows {
  /** Adds each event unless the recipient has one of its type already: its id, or null for a repeat. */
  add(events: readonly NewRecipientEvent[]): Promise<Array<number | null>>;
}

export interface CounterRows {
  bump(bumps: readonly CounterBump[]): Promise<void>;
  /** Moves the figure counts of each bump's message (which status counts is domain/figures.ts's rule). */
  bumpFigures(bumps: readonly FigureBump[]): Promise<void>;
  /** Moves each bump's team's queue depth (which states count is domain/figures.ts's rule). */
  bumpDepths(bumps: readonly DepthBump[]): Promise<void>;
}

/**
 * A message's status to set, whether a recipient of it was delivered (its sent_at is set the first time), and the
 * statuses its recipients count in (domain/figures.ts figureStatusesOf): an engine whose log search cannot join
 * the figure rows cheaply (PostgreSQL's GIN index) keeps them with the message; SQLite reads message_statuses.
 */
export interface MessageStatusUpdate {
  id: string;
  status: MessageStatus;
  sent: boolean;
  counted: readonly MessageStatus[];
}

export interface MessageRows {
  /**
   * Writes accepted messages, their credits already taken: message rows, recipients, the bodies given, the search
   * index and the figure counts each message names. Answers, per message and in order, its queued recipients and when
   * each is due (epoch ms), from the writing transaction itself.
   */
  record(messages: readonly NewMessage[]): Promise<Array<Array<{ id: number; due: number }>>>;
  /** The state of each message's recipients, and whether each complained. */
  recipientStates(messageIds: readonly string[]): Promise<Map<string, FigureState[]>>;
  setStatuses(updates: readonly MessageStatusUpdate[]): Promise<void>;
  /** Deletes the messages' bodies. */
  dropBodies(messageIds: readonly string[]): Promise<void>;
  /** Keeps the messages' bodies for a requeue, marked with now unless marked already (the window runs from the first mark). */
  markKept(messageIds: readonly string[]): Promise<void>;
}

/** A recipient a requeue may send again: chosen by the selector, its message's body still kept. */
export interface RequeueCandidate {
  id: number;
  messageId: string;
  teamId: number;
  email: string;
  domain: string;
}

/** A recipient an operator's move made due. */
export interface MovedDue {
  id: number;
  messageId: string;
  due: number;
}

/** A recipient a requeue queued again, with its team, the state it left and its complaint mark (for the figures). */
export interface Requeued extends MovedDue {
  teamId: number;
  from: RecipientState;
  complained: boolean;
}

/** A held recipient a release made due again. */
export interface Released extends MovedRecipient {
  due: number;
}

export interface QueueControlRows {
  /** Holds the chosen recipients in `from` (state in the statement): never claimed nor expired while held; those moved. */
  hold(selector: QueueSelector, from: RecipientState, now: number): Promise<MovedRecipient[]>;
  /**
   * Moves the chosen held recipients that were (or were never) attempted to `to`, due at `now`, the time held added
   * to what the maximum queue age does not count (state in the statement); those moved.
   */
  release(selector: QueueSelector, attempted: boolean, to: RecipientState, now: number): Promise<Released[]>;
  /** Ends the chosen recipients that are not being attempted as failed with `reason` (state in the statement); those moved. */
  fail(selector: QueueSelector, reason: string): Promise<MovedFrom[]>;
  /** The chosen bounced or failed recipients whose message's body is kept. */
  requeueCandidates(selector: QueueSelector): Promise<RequeueCandidate[]>;
  /** Queues the recipients again, due at `now`, each only while it is still bounced or failed (in the statement); those moved. */
  requeue(ids: readonly number[], now: number): Promise<Requeued[]>;
  /** Their bodies are kept for delivery again, no longer for requeue. */
  unmarkKept(messageIds: readonly string[]): Promise<void>;
}

export interface UnitOfWork {
  readonly recipients: RecipientRows;
  readonly credits: CreditRows;
  readonly suppressions: SuppressionRows;
  readonly outbox: OutboxRows;
  readonly counters: CounterRows;
  readonly messages: MessageRows;
  readonly queueControl: QueueControlRows;
  addAudit(entry: NewAuditEntry): Promise<void>;
}

/** Runs `work` in one transaction: all of it commits, or none of it (a throw undoes it and reaches the caller). */
export type Transaction = <T>(work: (tx: UnitOfWork) => Promise<T>) => Promise<T>;
