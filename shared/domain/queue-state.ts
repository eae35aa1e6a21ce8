// Recipient and message states: closed unions, and the one rule that says which moves are allowed and
// what a message's status is, derived from its recipients.
export const RECIPIENT_STATES = ['queued', 'sending', 'sent', 'deferred', 'held', 'bounced', 'complained', 'failed', 'suppressed'] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];

export const MESSAGE_STATUSES = ['pending', 'sent', 'bounced', 'complained', 'suppressed', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** States a recipient leaves only by a delivery attempt or by expiring (or by an operator's hold or purge). */
export const IN_FLIGHT: readonly RecipientState[] = ['queued', 'sending', 'deferred'];

/** States of a recipient still in the queue: in flight, or held there by an operator (never attempted, never expired). */
export const IN_QUEUE: readonly RecipientState[] = [...IN_FLIGHT, 'held'];

const MOVES: Readonly<Record<RecipientState, readonly RecipientState[]>> = {
  // An operator holds a recipient waiting for its turn, or purges it (failed); one being attempted is left alone.
  queued: ['sending', 'held', 'failed'],
  // A released lease (shutdown, crash) goes back to deferred; an expired recipient fails.
  sending: ['sent', 'deferred', 'bounced', 'failed'],
  deferred: ['sending', 'held', 'failed'],
  // Released, it waits again as it did (queued if never attempted, deferred otherwise); purged, it fails.
  held: ['queued', 'deferred', 'failed'],
  // A bounce report (DSN) or a complaint (ARF) may arrive after a 250.
  sent: ['bounced', 'complained'],
  // An operator's requeue: sent again as a new attempt (only while its message's body is kept).
  bounced: ['queued'],
  complained: [],
  failed: ['queued'],
  suppressed: [],
};

/** Where a released recipient waits again: as it did before its hold, queued if it was never attempted, else deferred. */
export const releasedTo = (attempted: boolean): Extract<RecipientState, 'queued' | 'deferred'> => (attempted ? 'deferred' : 'queued');

export function canMove(from: RecipientState, to: RecipientState): boolean {
  return MOVES[from].includes(to);
}

/** Recipients waiting for an attempt (not being attempted now): what an operator may hold or make due now. */
export const WAITING: readonly RecipientState[] = ['queued', 'deferred'];

/** Finished recipients an operator may send again (requeue), while their message's body is kept. */
export const REQUEUEABLE: readonly RecipientState[] = ['bounced', 'failed'];

export type QueueOperation = 'hold' | 'release' | 'flush' | 'purge' | 'requeue';

/**
 * The recipients each of an operator's queue operations applies to: hold moves them to held, release back to
 * queued or deferred, flush makes them due now, purge ends them as failed, requeue sends finished ones again
 * (all moves MOVES allows). A recipient
 * being attempted (sending) is left alone by all: its worker holds a lease and the remote server may have it.
 */
export const OPERATION_APPLIES_TO: Readonly<Record<QueueOperation, readonly RecipientState[]>> = {
  hold: WAITING,
  release: ['held'],
  flush: WAITING,
  purge: [...WAITING, 'held'],
  requeue: REQUEUEABLE,
};

/**
 * A message's status, from its recipients: pending while any is in the queue (in flight or held); otherwise complained if any
 * recipient complained, bounced if any bounced, sent if any was delivered, suppressed if all were
 * suppressed, and failed otherwise (expired, disposable or invalid recipients).
 */
export function messageStatusOf(states: readonly RecipientState[]): MessageStatus {
  if (states.some((s) => IN_QUEUE.includes(s))) return 'pending';
  if (states.includes('complained')) return 'complained';
  if (states.includes('bounced')) return 'bounced';
  if (states.includes('sent')) return 'sent';
  if (states.length > 0 && states.every((s) => s === 'suppressed')) return 'suppressed';
  return 'failed';
}
