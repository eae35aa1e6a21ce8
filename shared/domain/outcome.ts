// What an outcome does to a recipient: the one place that decides it. A delivery attempt's result, a bounce
// report (DSN) or a complaint (ARF) becomes effects — a state move, a domain counter, and the feedback part:
// the hard/soft mark, the suppression and the webhook event. The store applies them; it decides nothing.
import { canMove, type RecipientState } from './queue-state.js';
import type { SuppressionStatus } from './suppression.js';

export type RecipientOutcome =
  /** The remote server accepted the message (250). */
  | { kind: 'delivered' }
  /** A temporary failure: the recipient waits for its next attempt. */
  | { kind: 'deferred' }
  /** A permanent failure, from the SMTP reply or reported later by a DSN; `hard` when it proves the address bad. */
  | { kind: 'bounced'; hard: boolean; source: 'smtp' | 'report' }
  /** Deferred for longer than the queue keeps mail: a soft bounce. */
  | { kind: 'expired' }
  /** An operator ended it in the queue (purge): failed, reported as a soft bounce only when the operator asks. */
  | { kind: 'purged'; notify: boolean }
  /** The recipient reported the message as spam (a feedback-loop report). */
  | { kind: 'complained' };

/** What the recipient looks like before the outcome. */
export interface RecipientNow {
  state: RecipientState;
  /** Whether a complaint was already counted for this recipient. */
  complained: boolean;
}

export type DomainCounter = 'sent' | 'bounced' | 'complained';

export interface FeedbackEffects {
  /** The recipient's hard-bounce mark, when the outcome sets it. */
  hardBounce: boolean | null;
  /** The address goes on the team's suppression list with this status. */
  suppress: Extract<SuppressionStatus, 'bounced' | 'complained'> | null;
  /** The event delivered to the team's webhooks (one per recipient and type; a repeated report adds none). */
  event: { type: 'bounced'; hard: boolean } | { type: 'complaint' } | null;
}

export interface OutcomeEffects {
  /** The state the recipient moves to; null keeps its state. */
  moveTo: RecipientState | null;
  /** The sending domain's counter this outcome adds one to. */
  count: DomainCounter | null;
  feedback: FeedbackEffects;
}

const NO_FEEDBACK: FeedbackEffects = { hardBounce: null, suppress: null, event: null };

/**
 * The effects of an outcome on a recipient, or null when it does not apply to the recipient as it is now (a
 * bounce report about a recipient still in flight, a delivery result for one not being sent).
 */
export function effectsOf(outcome: RecipientOutcome, now: RecipientNow): OutcomeEffects | null {
  switch (outcome.kind) {
    case 'delivered':
      return now.state === 'sending' ? { moveTo: 'sent', count: 'sent', feedback: NO_FEEDBACK } : null;
    case 'deferred':
      return now.state === 'sending' ? { moveTo: 'deferred', count: null, feedback: NO_FEEDBACK } : null;
    case 'expired':
      // Expiry is a soft bounce: reported to webhooks, never a reason to suppress the address.
      return canMove(now.state, 'failed') ? { moveTo: 'failed', count: null, feedback: bounceFeedback(false) } : null;
    case 'purged':
      return canMove(now.state, 'failed') && now.state !== 'sending'
        ? { moveTo: 'failed', count: null, feedback: outcome.notify ? bounceFeedback(false) : NO_FEEDBACK }
        : null;
    case 'bounced':
      return bounced(outcome, now);
    case 'complained':
      return complained(now);
  }
}

/** A hard bounce suppresses the address; every bounce is marked and reported. */
const bounceFeedback = (hard: boolean): FeedbackEffects => ({ hardBounce: hard, suppress: hard ? 'bounced' : null, event: { type: 'bounced', hard } });

function bounced(outcome: { hard: boolean; source: 'smtp' | 'report' }, now: RecipientNow): OutcomeEffects | null {
  const feedback = bounceFeedback(outcome.hard);
  if (outcome.source === 'smtp') return now.state === 'sending' ? { moveTo: 'bounced', count: 'bounced', feedback } : null;
  // A DSN may arrive after a 250: a delivered recipient becomes bounced and counts once. A repeated report
  // about a bounced one changes nothing but its mark; one about a recipient still in flight is ignored.
  if (now.state === 'sent') return { moveTo: 'bounced', count: 'bounced', feedback };
  return now.state === 'bounced' ? { moveTo: null, count: null, feedback } : null;
}

function complained(now: RecipientNow): OutcomeEffects {
  const feedback: FeedbackEffects = { hardBounce: null, suppress: 'complained', event: { type: 'complaint' } };
  // Counted once; a delivered recipient moves to complained, one that bounced since keeps its state but counts.
  if (now.complained) return { moveTo: null, count: null, feedback };
  return { moveTo: canMove(now.state, 'complained') ? 'complained' : null, count: 'complained', feedback };
}

/**
 * Whether the outcome gives the recipient's credit back to the payer that paid: it ends the recipient without
 * handing the message to a remote server (expired in the queue, or purged by an operator).
 */
export function refundsCredit(outcome: RecipientOutcome): boolean {
  return outcome.kind === 'expired' || outcome.kind === 'purged';
}

/** The outcome a delivery attempt's result stands for. */
export function outcomeOfAttempt(to: 'sent' | 'deferred' | 'bounced' | 'failed', hard = false): RecipientOutcome {
  if (to === 'sent') return { kind: 'delivered' };
  if (to === 'deferred') return { kind: 'deferred' };
  if (to === 'bounced') return { kind: 'bounced', hard, source: 'smtp' };
  return { kind: 'expired' };
}
