// When a deferred recipient is tried again, and when the queue gives up on it. Policy is data: config/retry.json,
// overridden by TERNMAIL_RETRY_DELAYS_S and TERNMAIL_MAX_QUEUE_AGE_S, validated and frozen once.
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { ConfigError } from '../shared/config.js';
import { projectPath } from '../shared/paths.js';

const RetryFileSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    delaysS: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100 }),
    maxQueueAgeS: Type.Integer({ minimum: 1 }),
    jitterRatio: Type.Number({ minimum: 0, maximum: 0.5 }),
  },
  { additionalProperties: false },
);

export type RetryPolicy = Readonly<{ delaysS: readonly number[]; maxQueueAgeS: number; jitterRatio: number }>;

export interface RetryPolicyOptions {
  env?: NodeJS.ProcessEnv;
  /** Another policy file (tests). */
  path?: string;
}

const validate = new Ajv({ allErrors: true }).compile<Static<typeof RetryFileSchema>>(RetryFileSchema);
const WHOLE = /^\d+$/;

function readPolicyFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read retry policy ${file}: ${(err as Error).message}`);
  }
}

function envSeconds(name: string, value: string): number {
  if (!WHOLE.test(value.trim())) throw new ConfigError(`${name} must be whole seconds, got "${value}"`);
  return Number(value);
}

function envDelays(value: string): number[] {
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => !WHOLE.test(s))) {
    throw new ConfigError(`TERNMAIL_RETRY_DELAYS_S must be a comma-separated list of whole seconds, got "${value}"`);
  }
  return items.map(Number);
}

/** Environment values override the file; an empty variable counts as unset, as in shared/config.ts. */
function withEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out = { ...raw };
  const delays = env.TERNMAIL_RETRY_DELAYS_S;
  const maxAge = env.TERNMAIL_MAX_QUEUE_AGE_S;
  if (delays !== undefined && delays.trim() !== '') out.delaysS = envDelays(delays);
  if (maxAge !== undefined && maxAge.trim() !== '') out.maxQueueAgeS = envSeconds('TERNMAIL_MAX_QUEUE_AGE_S', maxAge);
  return out;
}

export function loadRetryPolicy(options: RetryPolicyOptions = {}): RetryPolicy {
  const file = options.path ?? projectPath('config', 'retry.json');
  const parsed = readPolicyFile(file);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`invalid retry policy in ${file}: not a JSON object`);
  }
  const raw = withEnv(parsed as Record<string, unknown>, options.env ?? process.env);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new ConfigError(`invalid retry policy (${file} with TERNMAIL_RETRY_* overrides): ${problems.join('; ')}`);
  }
  return Object.freeze({
    delaysS: Object.freeze([...raw.delaysS]),
    maxQueueAgeS: raw.maxQueueAgeS,
    jitterRatio: raw.jitterRatio,
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
