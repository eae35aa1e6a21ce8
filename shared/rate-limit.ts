// Sliding-window rate limits in Redis, shared by every process (API sidecars, MTAs, the dashboard): "N per W
// seconds" holds in any W seconds, not per clock window.
import type { Redis } from 'ioredis';
import { redisKeys } from './redis-keys.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Places left in the window now, after this hit. */
  remaining: number;
  /**
   * Seconds (rounded up) until the oldest hit that matters leaves the window: when refused or with none
   * left, the wait before a hit is allowed again; otherwise when `remaining` next grows.
   */
  resetS: number;
  windowS: number;
}

/** Both scripts start alike: Redis's clock in µs, the hits older than the window dropped, the hits left counted. */
const WINDOW_NOW = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
`;

/** ...and end alike: {allowed 0/1, hits in the window, µs until the hit at rank count-limit (or the oldest) leaves}. */
const WINDOW_ANSWER = `
local rank = math.max(0, count - limit)
local leaving = redis.call('ZRANGE', KEYS[1], rank, rank, 'WITHSCORES')[2]
if not leaving then return {allowed, count, window} end
return {allowed, count, tonumber(leaving) + window - now}
`;

/**
 * One decision, atomic, in one round trip (EVALSHA). The bucket is a sorted set of the hits counted in the last
 * window, scored by Redis's own clock in microseconds (one clock for every process and host). Hits older than
 * the window are dropped; a hit is added only when it is allowed, so refused retries never extend the wait.
 * Scores strictly increase, so two hits in one microsecond stay two members. The key expires one window after
 * its newest hit. When the hit at rank count-limit (or the oldest) leaves, one more fits.
 */
const SLIDING_WINDOW_HIT = `${WINDOW_NOW}
if count < limit then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
  local at = now
  if newest and tonumber(newest) >= now then at = tonumber(newest) + 1 end
  redis.call('ZADD', KEYS[1], at, at)
  redis.call('PEXPIRE', KEYS[1], math.ceil((at - now + window) / 1000))
  count = count + 1
  allowed = 1
end
${WINDOW_ANSWER}`;

/**
 * The same decision without a hit: whether one more would be allowed now, and when the window frees a place.
 * For limits that count only some outcomes (failed logins): look first, hit once the outcome is known.
 */
const SLIDING_WINDOW_PEEK = `${WINDOW_NOW}
if count < limit then allowed = 1 end
${WINDOW_ANSWER}`;

type WindowScript = (key: string, limit: number, windowUs: number) => Promise<[number, number, number]>;

interface WindowCommands {
  ternSlidingWindowHit: WindowScript;
  ternSlidingWindowPeek: WindowScript;
}

const hasCommands = (redis: Redis): redis is Redis & WindowCommands =>
  typeof (redis as Partial<WindowCommands>).ternSlidingWindowHit === 'function' && typeof (redis as Partial<WindowCommands>).ternSlidingWindowPeek === 'function';

/** The client with the scripts defined on it (ioredis sends EVALSHA, and EVAL once per connection). */
function withCommands(redis: Redis): Redis & WindowCommands {
  if (!hasCommands(redis)) {
    redis.defineCommand('ternSlidingWindowHit', { numberOfKeys: 1, lua: SLIDING_WINDOW_HIT });
    redis.defineCommand('ternSlidingWindowPeek', { numberOfKeys: 1, lua: SLIDING_WINDOW_PEEK });
  }
  if (!hasCommands(redis)) throw new Error('ioredis did not define the rate-limit scripts');
  return redis;
}

function decision([allowed, count, waitUs]: [number, number, number], limit: number, windowS: number): RateDecision {
  return {
    allowed: allowed === 1,
    limit,
    remaining: Math.max(0, limit - count),
    resetS: Math.max(1, Math.ceil(waitUs / 1_000_000)),
    windowS,
  };
}

/** One hit on the window kept under `key` (a name from redis-keys.ts). */
export async function hitWindow(redis: Redis, key: string, limit: number, windowS: number): Promise<RateDecision> {
  return decision(await withCommands(redis).ternSlidingWindowHit(key, limit, windowS * 1_000_000), limit, windowS);
}

/** Whether a hit on the window under `key` would be allowed now, without making one. */
export async function peekWindow(redis: Redis, key: string, limit: number, windowS: number): Promise<RateDecision> {
  return decision(await withCommands(redis).ternSlidingWindowPeek(key, limit, windowS * 1_000_000), limit, windowS);
}

export function hitRateLimit(redis: Redis, accountId: number, bucket: string, limit: number, windowS: number): Promise<RateDecision> {
  return hitWindow(redis, redisKeys.rateLimit(accountId, bucket), limit, windowS);
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
