// Fixed-window counters in Redis, shared by every process (API sidecars, MTAs, the dashboard).
import type { Redis } from 'ioredis';
import { redisKeys } from './redis-keys.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetS: number;
  windowS: number;
}

export async function hitRateLimit(
  redis: Redis,
  accountId: number,
  bucket: string,
  limit: number,
  windowS: number,
): Promise<RateDecision> {
  const nowS = Math.floor(Date.now() / 1000);
  const window = Math.floor(nowS / windowS);
  const key = redisKeys.rateLimit(accountId, bucket, window);
  // The key is created with its expiry before it is counted, so no key outlives its window. Two plain commands
  // rather than MULTI: on one connection they run in order, and auto-pipelining sends them with the other
  // requests' commands of the same moment.
  const [, count] = await Promise.all([redis.set(key, 0, 'EX', windowS + 1, 'NX'), redis.incr(key)]);
  const resetS = (window + 1) * windowS - nowS;
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetS, windowS };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), plus Retry-After when refused. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': String(d.resetS),
    'RateLimit-Policy': `${d.limit};w=${d.windowS}`,
  };
  if (!d.allowed) headers['Retry-After'] = String(d.resetS);
  return headers;
}
