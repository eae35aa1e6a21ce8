// When a deferred recipient is tried again, and when the queue gives up on it, as data: config/retry.json,
// overridden by TERNMAIL_RETRY_DELAYS_S and TERNMAIL_MAX_QUEUE_AGE_S, validated and frozen once by
// loadPolicies (index.ts) and handed to the MTA's scheduler; mta/delivery/retry-policy.ts applies it.
import { Type } from '@sinclair/typebox';
import { projectPath } from '../paths.js';
import { envText, loadPolicy, type EnvSetting } from '../policy-file.js';

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
