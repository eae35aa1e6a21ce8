// Recipient and message states: closed unions, and the one rule that says which moves are allowed and
// what a message's status is, derived from its recipients.
export const RECIPIENT_STATES = ['queued', 'sending', 'sent', 'deferred', 'bounced', 'complained', 'failed', 'suppressed'] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];

export const MESSAGE_STATUSES = ['pending', 'sent', 'bounced', 'complained', 'suppressed', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** States a recipient leaves only by a delivery attempt or by expiring. */
export const IN_FLIGHT: readonly RecipientState[] = ['queued', 'sending', 'deferred'];

const MOVES: Readonly<Record<RecipientState, readonly RecipientState[]>> = {
  queued: ['sending', 'failed'],
  // A released lease (shutdown, crash) goes back to deferred; an expired recipient fails.
  sending: ['sent', 'deferred', 'bounced', 'failed'],
  deferred: ['sending', 'failed'],
  // A bounce report (DSN) or a complaint (ARF) may arrive after a 250.
  sent: ['bounced', 'complained'],
  bounced: [],
  complained: [],
  failed: [],
  suppressed: [],
};

export function canMove(from: RecipientState, to: RecipientState): boolean {
  return MOVES[from].includes(to);
}

/**
 * A message's status, from its recipients: pending while any is in flight; otherwise complained if any
 * recipient complained, bounced if any bounced, sent if any was delivered, suppressed if all were
 * suppressed, and failed otherwise (expired, disposable or invalid recipients).
 */
export function messageStatusOf(states: readonly RecipientState[]): MessageStatus {
  if (states.some((s) => IN_FLIGHT.includes(s))) return 'pending';
  if (states.includes('complained')) return 'complained';
  if (states.includes('bounced')) return 'bounced';
  if (states.includes('sent')) return 'sent';
  if (states.length > 0 && states.every((s) => s === 'suppressed')) return 'suppressed';
  return 'failed';
}
