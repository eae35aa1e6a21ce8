// What tests may do to a store that the product never does: age records and force states, through narrow
// named calls. Every engine provides one (store/sqlite/test-support.ts); the production Store has none of it.
import type { RecipientState } from '../domain/queue-state.js';
import type { InboundReport } from '../domain/feedback.js';

export interface StoreTestSupport {
  /** Soft-deletes a team, as a future removal will: it is no longer found, listed or counted. */
  deleteTeam(id: number): Promise<void>;
  /** Sets when a domain was created. */
  backdateDomain(id: string, createdAt: string): Promise<void>;
  /** Sets when a message was accepted (keep accepting order and time order the same, as real writes do). */
  backdateMessage(id: string, createdAt: string): Promise<void>;
  /** Puts a recipient in a final state without a delivery, with or without a complaint, for figures over many recipients. */
  forceRecipientOutcome(recipientId: number, state: Extract<RecipientState, 'sent' | 'bounced'>, complained: boolean): Promise<void>;
  /**
   * Puts a recipient in flight (claimed or deferred) with the reply of its last attempt, as of `at`, without a
   * delivery: for the operators' reads of a team's queue and its errors.
   */
  forceRecipientInFlight(recipientId: number, state: Extract<RecipientState, 'sending' | 'deferred'>, lastReply: string, at: string): Promise<void>;
  /** Sets when a webhook delivery was attempted. */
  backdateWebhookDelivery(id: number, attemptedAt: string): Promise<void>;
  /** Sets when an invitation expires. */
  setInvitationExpiry(id: number, expiresAt: string): Promise<void>;
  /** Sets when a platform invitation expires. */
  setPlatformInvitationExpiry(id: number, expiresAt: string): Promise<void>;
  /** Sets when every password-reset link of a user expires. */
  setPasswordResetExpiry(userId: number, expiresAt: string): Promise<void>;
  /** Sets when every two-step challenge of a user expires. */
  setTwoStepExpiry(userId: number, expiresAt: string): Promise<void>;
  /** Moves the expiry of the user's sign-in links (magic links). */
  setMagicLinkExpiry(userId: number, expiresAt: string): Promise<void>;
  /** Records a waiting report without its body, as a release before schema 36 did (the body was in a file spool). */
  addReportWithoutBody(r: InboundReport): Promise<void>;
  close(): Promise<void>;
}
