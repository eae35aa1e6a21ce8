// Every Redis key and channel name the product uses, in one place.
const P = 'tern:';

export const redisKeys = {
  /** Fixed-window rate-limit counter for one account and bucket. */
  rateLimit: (accountId: number, bucket: string, window: number) => `${P}rl:${bucket}:${accountId}:${window}`,
  /** Suppression removals made today (UTC) by one account, shared with the dashboard. */
  suppressionRemovals: (accountId: number, day: string) => `${P}supdel:${accountId}:${day}`,
  /** Held by the process running the automatic domain check. */
  verifyLock: () => `${P}lock:verify-domains`,
  /** Held by the process draining the webhook event outbox. */
  webhooksLock: () => `${P}lock:webhooks`,
  /** Published when a key is revoked, so every process drops it from its cache at once. */
  keyRevokedChannel: () => `${P}keys:revoked`,
  /** Recipients waiting for delivery: member = recipient id, score = when due (epoch ms). Rebuilt from SQLite. */
  queueDue: () => `${P}queue:due`,
  /** Published when new mail is queued, so an idle scheduler looks at once. */
  queueWakeChannel: () => `${P}queue:wake`,
  /** Sending-rate counter of one account for one second. */
  sendRate: (accountId: number, second: number) => `${P}sendrate:${accountId}:${second}`,
  /** The stored first response of an Idempotency-Key (24 h). */
  idempotency: (accountId: number, key: string) => `${P}idem:${accountId}:${key}`,
} as const;
