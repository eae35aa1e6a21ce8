// What an operator reads and steers of the queue (like Postfix's mailq, qshape, postqueue -f and postsuper):
// recipients in the queue chosen by a selector, listed or summed by destination, held, released, made due now or
// purged. Each change and its audit entry commit together. The queue module (queue/queue.ts) is the only caller;
// the moves that change a recipient's state (hold, release, purge, requeue), whose effects on the figures and
// queue depths it decides, go through the unit of work (unit-of-work.ts).
import type { RecipientState } from '../domain/queue-state.js';
import type { Applied, BounceInput } from './feedback.js';
import type { NewAuditEntry } from './audit-log.js';

/** Which recipients in the queue an operation applies to; every field given narrows the choice. */
export interface QueueSelector {
  teamId?: number;
  /** The recipient's domain (the destination), lower case. */
  domain?: string;
  states?: readonly RecipientState[];
  /** Epoch ms: only recipients queued before it. */
  queuedBefore?: number;
  messageId?: string;
}

/** A recipient in the queue as an operator sees it. */
export interface QueuedRecipient {
  id: number;
  messageId: string;
  teamId: number;
  email: string;
  domain: string;
  state: RecipientState;
  attempts: number;
  /** Epoch ms; null while held or being attempted. */
  nextAttemptAt: number | null;
  lastReply: string | null;
  /** Epoch ms. */
  queuedAt: number;
  /** Epoch ms: when its hold began; null when it is not held. */
  heldAt: number | null;
}

/** One destination domain's part of the queue (qshape's line). */
export interface DestinationSummary {
  domain: string;
  /** Its recipients in the queue, in any state. */
  total: number;
  queued: number;
  sending: number;
  deferred: number;
  held: number;
  /** Epoch ms: when its oldest recipient was queued. */
  oldestQueuedAt: number;
  /** The last temporary failure's reply among its deferred or held recipients; null when there is none. */
  lastError: string | null;
}

/** A recipient an operation moved. */
export interface ChangedRecipient {
  id: number;
  messageId: string;
}

/** A recipient made due: what goes back on the schedule. */
export interface DueAgain extends ChangedRecipient {
  due: number;
}

/** The audit entry of an operation, from how many recipients it changed. */
export type QueueAudit = (changed: number) => NewAuditEntry;

export interface PurgeOutcome {
  purged: ChangedRecipient[];
  /** Messages with nothing left in the queue (their bodies deleted in the same transaction). */
  finished: string[];
  /** With notify: the soft bounces recorded (their webhook events are in the outbox). */
  bounces: Array<{ input: BounceInput; applied: Applied }>;
}

/** A recipient a requeue left alone because its address is on its team's suppression list. */
export interface SuppressedRecipient extends ChangedRecipient {
  email: string;
}

/** What a requeue did; nothing at all when the team's credits could not pay for the new attempts. */
export type RequeueOutcome =
  /** `suppressed` and `disposable`: the recipients left alone because the intake's rule would not send to them. */
  | { ok: true; requeued: DueAgain[]; suppressed: SuppressedRecipient[]; disposable: SuppressedRecipient[] }
  | { ok: false; reason: 'insufficient_credits'; balance: number };

export interface QueueControlRepository {
  /** The recipients chosen, oldest first. */
  listQueued(selector: QueueSelector, limit: number): Promise<QueuedRecipient[]>;
  /** The chosen recipients by destination domain, the most first. */
  summarize(selector: QueueSelector): Promise<DestinationSummary[]>;
  /** Makes the chosen waiting recipients due at `now`. */
  flush(selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]>;
  /** Deletes up to `limit` bodies kept for requeue of messages finished before `finishedBefore` (ISO 8601); the number deleted. */
  dropKeptBodies(finishedBefore: string, limit: number): Promise<number>;
}
