// When a deferred recipient is tried again, and when the queue gives up on it, by the retry policy the MTA was
// handed (shared/policies/retry.ts loads and validates it once; nothing here reads a file).
import type { RetryPolicy } from '../../shared/policies/retry.js';

/** The wait, before jitter, after `attempts` failed attempts; past the list its last delay repeats. */
export function retryDelayS(attempts: number, policy: RetryPolicy): number {
  if (!Number.isInteger(attempts) || attempts < 0) throw new RangeError(`attempts must be a whole number, got ${attempts}`);
  if (attempts === 0) return 0;
  return policy.delaysS[Math.min(attempts, policy.delaysS.length) - 1]!;
}

/** When a recipient queued at `firstQueuedAt` stops being retried. */
export function expiresAt(firstQueuedAt: Date, policy: RetryPolicy): Date {
  return new Date(firstQueuedAt.getTime() + policy.maxQueueAgeS * 1000);
}

/**
 * When to try again after `attempts` failed attempts, or 'expired' once the recipient is older than the max
 * queue age. A retry that would fall after the deadline is moved onto it, so the last chance is not lost.
 */
export function nextAttemptAt(attempts: number, firstQueuedAt: Date, now: Date, policy: RetryPolicy, random: () => number = Math.random): Date | 'expired' {
  const deadline = expiresAt(firstQueuedAt, policy).getTime();
  if (now.getTime() >= deadline) return 'expired';
  // ±jitterRatio: retries of one destination deferred together should not all return in the same second.
  const spread = 1 + policy.jitterRatio * (2 * random() - 1);
  const next = now.getTime() + Math.round(retryDelayS(attempts, policy) * 1000 * spread);
  return new Date(Math.min(next, deadline));
}
