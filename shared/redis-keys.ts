// Every Redis key and channel name the product uses, in one place.
const P = 'tern:';

export const redisKeys = {
  /** Fixed-window rate-limit counter for one account and bucket. */
  rateLimit: (accountId: number, bucket: string, window: number) => `${P}rl:${bucket}:${accountId}:${window}`,
  /** Suppression removals made today (UTC) by one account, shared with the dashboard. */
  suppressionRemovals: (accountId: number, day: string) => `${P}supdel:${accountId}:${day}`,
  /** Held by the process running the automatic domain check. */
  verifyLock: () => `${P}lock:verify-domains`,
  /** Published when a key is revoked, so every process drops it from its cache at once. */
  keyRevokedChannel: () => `${P}keys:revoked`,
} as const;
