// When a deferred recipient is tried again, and when the queue gives up on it. Policy is data: config/retry.json,
// overridden by TERNMAIL_RETRY_DELAYS_S and TERNMAIL_MAX_QUEUE_AGE_S, validated and frozen once.
import { Type } from '@sinclair/typebox';
import { projectPath } from '../../shared/paths.js';
import { envText, loadPolicy, type EnvSetting } from '../../shared/policy-file.js';

const RetryFileSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    delaysS: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100 }),
    maxQueueAgeS: Type.Integer({ minimum: 1 }),
    jitterRatio: Type.Number({ minimum: 0, maximum: 0.5 }),
    requeueWindowS: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export type RetryPolicy = Readonly<{
  delaysS: readonly number[];
  maxQueueAgeS: number;
  jitterRatio: number;
  /** How long a finished message's body is kept when a recipient of it bounced or failed: what requeue can send again. */
  requeueWindowS: number;
}>;

export interface RetryPolicyOptions {
  env?: NodeJS.ProcessEnv;
  /** Another policy file (tests). */
  path?: string;
}

/** Whole seconds; text that is not is kept, so the error names the variable and its value. */
const ENV_SETTINGS: readonly EnvSetting[] = [
  ['TERNMAIL_RETRY_DELAYS_S', ['delaysS'], envText.intList],
  ['TERNMAIL_MAX_QUEUE_AGE_S', ['maxQueueAgeS'], envText.int],
];

export function loadRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  return loadPolicy({
    what: 'retry policy',
    schema: RetryFileSchema,
    files: [options.path ?? projectPath('config', 'retry.json')],
    env: options.env ?? process.env,
    envSettings: ENV_SETTINGS,
    build: ({ delaysS, maxQueueAgeS, jitterRatio, requeueWindowS }) => ({ delaysS, maxQueueAgeS, jitterRatio, requeueWindowS }),
  });
}

let current: RetryPolicy | undefined;

/** The policy from config/retry.json and process.env, loaded on first use. */
export function retryPolicy(): RetryPolicy {
  current ??= loadRetryPolicy();
  return current;
}

/** The wait, before jitter, after `attempts` failed attempts; past the list its last delay repeats. */
export function retryDelayS(attempts: number, policy: RetryPolicy = retryPolicy()): number {
  if (!Number.isInteger(attempts) || attempts < 0) throw new RangeError(`attempts must be a whole number, got ${attempts}`);
  if (attempts === 0) return 0;
  return policy.delaysS[Math.min(attempts, policy.delaysS.length) - 1]!;
}

/** When a recipient queued at `firstQueuedAt` stops being retried. */
export function expiresAt(firstQueuedAt: Date, policy: RetryPolicy = retryPolicy()): Date {
  return new Date(firstQueuedAt.getTime() + policy.maxQueueAgeS * 1000);
}

/**
 * When to try again after `attempts` failed attempts, or 'expired' once the recipient is older than the max
 * queue age. A retry that would fall after the deadline is moved onto it, so the last chance is not lost.
 */
export function nextAttemptAt(
  attempts: number,
  firstQueuedAt: Date,
  now: Date,
  policy: RetryPolicy = retryPolicy(),
  random: () => number = Math.random,
): Date | 'expired' {
  const deadline = expiresAt(firstQueuedAt, policy).getTime();
  if (now.getTime() >= deadline) return 'expired';
  // ±jitterRatio: retries of one destination deferred together should not all return in the same second.
  const spread = 1 + policy.jitterRatio * (2 * random() - 1);
  const next = now.getTime() + Math.round(retryDelayS(attempts, policy) * 1000 * spread);
  return new Date(Math.min(next, deadline));
}
