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

/** A window a hit counts in: its Redis key (a name from redis-keys.ts), its limit and its length. */
export interface Window {
  key: string;
  limit: number;
  windowS: number;
}

/**
 * What a reservation took: `granted` hits in every window (0 to the number asked; the same in each), each
 * window's decision after it, and where the hits were put, to give them back (refund).
 */
export interface Reservation {
  granted: number;
  decisions: RateDecision[];
  /** Per window, in order: the first and last scores of the hits added (none when granted is 0). */
  readonly hits: ReadonlyArray<{ key: string; first: number; last: number }>;
}

/**
 * One reservation over one or more windows, atomic, in one round trip (EVALSHA). Each bucket is a sorted set of
 * the hits counted in the last window, scored by Redis's own clock in microseconds (one clock for every process
 * and host). In each window the hits older than it are dropped; then `want` hits are granted, or as many as every
 * window still has room for, and added to every window: all windows or none, so a refused attempt never fills
 * one window while another refuses it, and refused retries never extend the wait. Scores strictly increase, so
 * two hits in one microsecond stay two members. A key expires one window after its newest hit. Answers the number
 * granted, then per window: the hits in it, the µs until the hit at rank count-limit (or the oldest) leaves (when
 * it does, one more fits), and the score of the first hit added.
 *
 * KEYS: the windows' keys. ARGV: want, then each window's limit and length in µs.
 */
const SLIDING_WINDOWS_TAKE = `
local want = tonumber(ARGV[1])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local counts = {}
local granted = want
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  counts[i] = redis.call('ZCARD', KEYS[i])
  granted = math.min(granted, math.max(0, limit - counts[i]))
end
local out = {granted}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  local first = 0
  if granted > 0 then
    local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')[2]
    first = now
    if newest and tonumber(newest) >= now then first = tonumber(newest) + 1 end
    for j = 0, granted - 1 do redis.call('ZADD', KEYS[i], first + j, first + j) end
    redis.call('PEXPIRE', KEYS[i], math.ceil((first + granted - 1 - now + window) / 1000))
    counts[i] = counts[i] + granted
  end
  local rank = math.max(0, counts[i] - limit)
  local leaving = redis.call('ZRANGE', KEYS[i], rank, rank, 'WITHSCORES')[2]
  local wait = window
  if leaving then wait = tonumber(leaving) + window - now end
  table.insert(out, counts[i])
  table.insert(out, wait)
  table.insert(out, first)
end
return out`;

/** Gives back hits a reservation took (KEYS: the keys; ARGV: each key's first and last score). */
const SLIDING_WINDOWS_REFUND = `
for i = 1, #KEYS do redis.call('ZREMRANGEBYSCORE', KEYS[i], ARGV[2 * i - 1], ARGV[2 * i]) end
return 0`;

/**
 * The scripts run with EVAL, not as commands defined on the client (defineCommand): the processes' clients
 * auto-pipeline, and a pipeline opened before the definition lacks the command ("pipeline[functionName] is not
 * a function"), which failed a process's first reservation (in the cluster test, an MTA's first MAIL, after which that MTA exited). Redis
 * caches a script by its digest, so EVAL costs only the bytes. No numberOfKeys is fixed: each call says how many
 * windows it names.
 */
const takeWindows = async (redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<number[]> =>
  (await redis.eval(SLIDING_WINDOWS_TAKE, keys.length, ...keys, ...args)) as number[];
const refundWindows = async (redis: Redis, keys: readonly string[], args: readonly number[]): Promise<void> => {
  await redis.eval(SLIDING_WINDOWS_REFUND, keys.length, ...keys, ...args);
};

/**
 * Reserves `want` hits (at least 1) in every one of `windows` at once, or as many as all of them have room for:
 * take the place BEFORE the work it limits, so that concurrent callers can never pass the limit between a look
 * and a hit. A decision is allowed when every hit asked for was granted.
 */
export async function reserveWindows(redis: Redis, windows: readonly Window[], want = 1): Promise<Reservation> {
  const args = windows.flatMap((w) => [w.limit, w.windowS * 1_000_000]);
  const out = await takeWindows(
    redis,
    windows.map((w) => w.key),
    [want, ...args],
  );
  const granted = out[0] ?? 0;
  const decisions: RateDecision[] = [];
  const hits: Array<{ key: string; first: number; last: number }> = [];
  windows.forEach((w, i) => {
    const [count, waitUs, first] = [out[1 + 3 * i] ?? 0, out[2 + 3 * i] ?? 0, out[3 + 3 * i] ?? 0];
    decisions.push({
      allowed: granted === want,
      limit: w.limit,
      remaining: Math.max(0, w.limit - count),
      resetS: Math.max(1, Math.ceil(waitUs / 1_000_000)),
      windowS: w.windowS,
    });
    if (granted > 0) hits.push({ key: w.key, first, last: first + granted - 1 });
  });
  return { granted, decisions, hits };
}

/** Gives back the hits a reservation took in the windows under `keys` (a login that succeeded, say). */
export async function refundHits(redis: Redis, reservation: Reservation, keys: readonly string[]): Promise<void> {
  const hits = reservation.hits.filter((h) => keys.includes(h.key));
  if (hits.length === 0) return;
  await refundWindows(
    redis,
    hits.map((h) => h.key),
    hits.flatMap((h) => [h.first, h.last]),
  );
}

/** One hit on the window kept under `key` (a name from redis-keys.ts): a reservation of one place in one window. */
export async function hitWindow(redis: Redis, key: string, limit: number, windowS: number): Promise<RateDecision> {
  const { decisions } = await reserveWindows(redis, [{ key, limit, windowS }]);
  const [decision] = decisions;
  if (!decision) throw new Error('a reservation over one window answers one decision');
  return decision;
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
