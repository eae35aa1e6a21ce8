// The queue repository: recipients claimed under a lease token, attempt results recorded only for the token
// that holds the lease (fencing), leases released, and what the Redis schedule is rebuilt from. The queue
// module (queue/queue.ts) is its only caller; results are recorded through the unit of work (unit-of-work.ts,
// queue/finish.ts), which decides their effects.
import type { RecipientState } from '../domain/queue-state.js';
import type { Applied, BounceInput } from './feedback.js';

/** A recipient leased for delivery, with what the worker needs of its message. */
export interface DueRecipient {
  id: number;
  messageId: string;
  teamId: number;
  domainId: string | null;
  envelopeFrom: string;
  email: string;
  domain: string;
  attempts: number;
  /** Epoch ms: when it was queued (what delivery latency is measured from). */
  queuedAt: number;
  /** Epoch ms the max queue age counts from: queuedAt, moved later by the time it spent held by an operator. */
  ageFrom: number;
  /** The lease this worker holds: its results and its release count only while the recipient still carries it. */
  leaseToken: string;
}

/** What names a lease: the recipient and the token its claim was given. */
export type Lease = Pick<DueRecipient, 'id' | 'leaseToken'>;

export interface AttemptResult {
  recipientId: number;
  /** The token of the claim this result comes from. */
  leaseToken: string;
  to: Extract<RecipientState, 'sent' | 'deferred' | 'bounced' | 'failed'>;
  reply: string;
  mxHost: string | null;
  ip: string | null;
  /** For deferred: when to try next (epoch ms). */
  nextAttemptAt?: number;
  /** For bounced: whether the reply proves the address bad (the address is then suppressed). */
  hard?: boolean;
}

/** A result refused because its lease is no longer the recipient's: nothing of it was written. */
export interface StaleResult {
  result: AttemptResult;
  /** The recipient's lease token now (another worker's, or null for a recipient never claimed since migration 8). */
  currentToken: string | null;
  /** The recipient's state now (null when there is no such recipient). */
  currentState: RecipientState | null;
}

export interface FinishOutcome {
  /** Messages with no recipient left in flight (their bodies deleted in the same transaction). */
  finished: string[];
  bounces: Array<{ input: BounceInput; applied: Applied }>;
  refused: StaleResult[];
}

export interface QueueRepository {
  /**
   * Leases due recipients under `token`: each moves to `sending` until `leaseUntil` unless another lease on it
   * is still running; one whose lease ran out is taken over, and the new token fences out the old holder.
   */
  claim(ids: readonly number[], now: number, leaseUntil: number, token: string): Promise<DueRecipient[]>;
  /** Returns leased recipients to the queue (due at `now`), each only while it still carries its token; the ids released. */
  release(leases: readonly Lease[], now: number): Promise<number[]>;
  /** In-flight recipients whose due time passed `before` (lost from the schedule, or a dead worker's lease). */
  overdue(before: number, limit: number): Promise<Array<{ id: number; due: number }>>;
  /** Every recipient still in flight and when it is due: what the schedule is rebuilt from. */
  inFlight(): Promise<Array<{ id: number; due: number }>>;
  /** Those of `ids` still in flight, and when each is due (an entry the schedule gave up too early is put back at it). */
  inFlightOf(ids: readonly number[]): Promise<Array<{ id: number; due: number }>>;
  /** Recipients in the queue (in flight or held), by state, every state listed (0 when none). */
  countInFlight(): Promise<Record<string, number>>;
}
