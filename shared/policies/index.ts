// Every policy a process runs by, loaded and validated once at its start and handed down explicitly: the
// configuration (config/defaults.json, the operator's file, TERNMAIL_* variables), the retry policy
// (config/retry.json) and the SMTP reply rules (config/smtp-replies.json). No module reads a policy file itself.
import { loadConfig, type Config, type LoadOptions } from '../config.js';
import { loadRetryPolicy, type RetryPolicy } from './retry.js';
import { loadReplyRules, type ReplyRules } from './smtp-replies.js';

export interface Policies {
  readonly config: Config;
  readonly retry: RetryPolicy;
  readonly replies: ReplyRules;
}

/** The delivery rules alone: the retry policy and the reply rules. */
export type DeliveryRules = Omit<Policies, 'config'>;

/** The retry policy (with its TERNMAIL_RETRY_DELAYS_S and TERNMAIL_MAX_QUEUE_AGE_S overrides) and the reply rules. */
export function loadDeliveryRules(env: NodeJS.ProcessEnv = process.env): DeliveryRules {
  return { retry: loadRetryPolicy({ env }), replies: loadReplyRules() };
}

/** All three, or a ConfigError naming the first broken file and each wrong setting in it. */
export function loadPolicies(options: LoadOptions = {}): Policies {
  return { config: loadConfig(options), ...loadDeliveryRules(options.env) };
}
