// The shared rate limiter against a real redis-server: "N per W seconds" holds in any W seconds (across the
// edges of the old fixed clock windows too), the decision's remaining and reset are exact, and hits from two
// connections at once never pass more than the limit; a reservation over several windows or of several places
// is all-or-nothing across windows and grants what fits, and its places can be given back.
import t from 'tap';
import type { Redis } from 'ioredis';
import { startRedis } from './helpers/redis.js';
import { connectRedis } from '../shared/redis.js';
import { hitRateLimit, rateLimitHeaders, refundHits, reserveWindows, type RateDecision } from '../shared/rate-limit.js';
import { redisKeys } from '../shared/redis-keys.js';

const server = await startRedis();
const redis = connectRedis(server.url, 'rate-limit-test');
t.teardown(async () => {
  redis.disconnect();
  await server.stop();
});

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
let nextAccount = 1;
const freshAccount = () => nextAccount++;

/** Seconds rounded up from `ms`, as the headers give them. */
const ceilS = (ms: number) => Math.ceil(ms / 1000);

/** Hits the bucket `count` times one after the other. */
async function hits(client: Redis, account: number, limit: number, windowS: number, count: number): Promise<RateDecision[]> {
  const out: RateDecision[] = [];
  for (let i = 0; i < count; i++) out.push(await hitRateLimit(client, account, 'test', limit, windowS));
  return out;
}

t.test('a burst just before an old clock-window edge and one just after it: the second is refused until the first ages out', async (t) => {
  const LIMIT = 5;
  const WINDOW_S = 2;
  const account = freshAccount();
  // The fixed windows counted floor(seconds / W): their edges are the multiples of 2,000 ms of the clock.
  let edge = Math.ceil(Date.now() / 2000) * 2000;
  if (edge - Date.now() < 600) edge += 2000;
  await sleepUntil(edge - 400);
  const firstAt = Date.now();
  const first = await Promise.all(Array.from({ length: LIMIT }, () => hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S)));
  const firstDone = Date.now();
  t.ok(firstDone < edge, `the first burst ended ${edge - firstDone} ms before the edge`);
  t.same(
    first.map((d) => d.allowed),
    [true, true, true, true, true],
    'the first five pass',
  );

  await sleepUntil(edge + 100);
  const second = await hits(redis, account, LIMIT, WINDOW_S, LIMIT);
  t.same(
    second.map((d) => d.allowed),
    [false, false, false, false, false],
    'five more just after the edge are refused',
  );
  for (const d of second) {
    t.equal(d.remaining, 0);
    t.ok(d.resetS >= ceilS(firstAt + 2000 - Date.now()) && d.resetS <= ceilS(firstDone + 2000 - (edge + 100)), `reset ${d.resetS} s`);
  }

  // Refused retries do not count: they neither extend the wait nor use the next places.
  while (Date.now() < firstAt + WINDOW_S * 1000 - 250) {
    const d = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
    if (Date.now() < firstAt + WINDOW_S * 1000) t.equal(d.allowed, false, 'still refused while the first burst is in the window');
    await new Promise((r) => setTimeout(r, 200));
  }
  await sleepUntil(firstDone + WINDOW_S * 1000 + 50);
  const third = await hits(redis, account, LIMIT, WINDOW_S, LIMIT + 1);
  t.same(
    third.map((d) => d.allowed),
    [true, true, true, true, true, false],
    'once the first burst has left, five pass again',
  );
});

t.test('remaining counts down and a refusal carries Retry-After = the time until the oldest hit leaves the window', async (t) => {
  const LIMIT = 3;
  const WINDOW_S = 2;
  const account = freshAccount();
  const oldestFrom = Date.now();
  const d1 = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  const oldestTo = Date.now();
  await new Promise((r) => setTimeout(r, 700));
  const nextFrom = Date.now();
  const d2 = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  const nextTo = Date.now();
  const d3 = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  t.same(
    [d1, d2, d3].map((d) => [d.allowed, d.remaining]),
    [
      [true, 2],
      [true, 1],
      [true, 0],
    ],
    'allowed, with 2, 1 and 0 left',
  );

  const before = Date.now();
  const refused = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  const after = Date.now();
  t.equal(refused.allowed, false);
  t.equal(refused.remaining, 0);
  const lo = ceilS(oldestFrom + WINDOW_S * 1000 - after);
  const hi = ceilS(oldestTo + WINDOW_S * 1000 - before);
  t.ok(refused.resetS >= lo && refused.resetS <= hi, `reset ${refused.resetS} s, expected ${lo}..${hi}`);
  const headers = rateLimitHeaders(refused);
  t.same(headers, {
    'RateLimit-Limit': '3',
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': String(refused.resetS),
    'RateLimit-Policy': '3;w=2',
    'Retry-After': String(refused.resetS),
  });
  t.notOk('Retry-After' in rateLimitHeaders(d3), 'an allowed hit carries no Retry-After');
  t.equal(rateLimitHeaders(d2)['RateLimit-Remaining'], '1');

  // Just before the oldest hit leaves: still refused, now with 1 s to wait.
  await sleepUntil(oldestFrom + WINDOW_S * 1000 - 200);
  const late = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  if (Date.now() < oldestFrom + WINDOW_S * 1000) t.same([late.allowed, late.resetS], [false, 1], 'refused until the oldest hit leaves, 1 s to wait');

  // Just after: one place, and the next wait is the second hit's.
  await sleepUntil(oldestTo + WINDOW_S * 1000 + 50);
  const freed = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  t.same([freed.allowed, freed.remaining], [true, 0], 'one place came back');
  const again = await hitRateLimit(redis, account, 'test', LIMIT, WINDOW_S);
  const againAt = Date.now();
  t.equal(again.allowed, false);
  t.ok(again.resetS >= ceilS(nextFrom + WINDOW_S * 1000 - againAt) && again.resetS <= ceilS(nextTo + WINDOW_S * 1000 - (oldestTo + 2050)), `reset ${again.resetS} s`);
});

t.test('hits from two connections at once never pass more than the limit', async (t) => {
  const LIMIT = 50;
  const account = freshAccount();
  const other = connectRedis(server.url, 'rate-limit-test-2');
  t.teardown(() => other.disconnect());
  const all = await Promise.all(Array.from({ length: 200 }, (_, i) => hitRateLimit(i % 2 ? other : redis, account, 'test', LIMIT, 10)));
  const allowed = all.filter((d) => d.allowed);
  t.equal(allowed.length, LIMIT, 'exactly the limit passes');
  t.same(
    allowed.map((d) => d.remaining).sort((a, b) => a - b),
    Array.from({ length: LIMIT }, (_, i) => i),
    'each allowed hit saw its own remaining count',
  );
  t.ok(
    all.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetS >= 1 && d.resetS <= 10),
    'every refusal says 0 left and when to retry',
  );
});

t.test('a limit lowered below the hits in the window refuses until enough of them have left', async (t) => {
  const account = freshAccount();
  await hits(redis, account, 4, 2, 2);
  await new Promise((r) => setTimeout(r, 800));
  const thirdFrom = Date.now();
  await hits(redis, account, 4, 2, 2);
  const thirdTo = Date.now();
  const lowered = await hitRateLimit(redis, account, 'test', 2, 2);
  const at = Date.now();
  t.same([lowered.allowed, lowered.remaining], [false, 0]);
  // Four in the window and a limit of 2: the third hit must leave too before one more fits.
  t.ok(lowered.resetS >= ceilS(thirdFrom + 2000 - at) && lowered.resetS <= ceilS(thirdTo + 2000 - at + 50), `reset ${lowered.resetS} s`);
});

t.test('buckets are per account and per bucket name, and a bucket key lives one window after its newest hit', async (t) => {
  const a = freshAccount();
  const b = freshAccount();
  t.equal((await hitRateLimit(redis, a, 'domains', 1, 60)).allowed, true);
  t.equal((await hitRateLimit(redis, a, 'domains', 1, 60)).allowed, false);
  t.equal((await hitRateLimit(redis, a, 'writes', 1, 60)).allowed, true, 'another bucket of the same account');
  t.equal((await hitRateLimit(redis, b, 'domains', 1, 60)).allowed, true, 'the same bucket of another account');
  const ttl = await redis.pttl(redisKeys.rateLimit(a, 'domains'));
  t.ok(ttl > 59_000 && ttl <= 60_000, `expires in ${ttl} ms`);
});

t.test('a reservation over two windows takes a place in both or in neither, and a refund gives it back', async (t) => {
  const tight = { key: redisKeys.rateLimit(freshAccount(), 'tight'), limit: 2, windowS: 60 };
  const loose = { key: redisKeys.rateLimit(freshAccount(), 'loose'), limit: 10, windowS: 60 };
  for (let i = 0; i < 2; i++) t.equal((await reserveWindows(redis, [tight, loose])).granted, 1);
  const refused = await reserveWindows(redis, [tight, loose]);
  t.equal(refused.granted, 0, 'the tight window is full');
  t.same(
    refused.decisions.map((d) => [d.allowed, d.remaining]),
    [
      [false, 0],
      [false, 8],
    ],
    'and the loose one was not counted either',
  );
  t.equal(await redis.zcard(loose.key), 2);
  const looseOnly = await reserveWindows(redis, [loose]);
  await refundHits(redis, looseOnly, [loose.key]);
  t.equal(await redis.zcard(loose.key), 2, 'the refunded hit is gone, the others stay');
});

t.test('a reservation of several places grants what fits, at once, with the remaining exact', async (t) => {
  const w = { key: redisKeys.rateLimit(freshAccount(), 'bulk'), limit: 5, windowS: 60 };
  const three = await reserveWindows(redis, [w], 3);
  t.same([three.granted, three.decisions[0]!.allowed, three.decisions[0]!.remaining], [3, true, 2]);
  const over = await reserveWindows(redis, [w], 4);
  t.same([over.granted, over.decisions[0]!.allowed, over.decisions[0]!.remaining], [2, false, 0], 'two of four fit');
  t.ok(over.decisions[0]!.resetS >= 59 && over.decisions[0]!.resetS <= 60, 'and the wait is until the oldest leaves');
  t.equal(await redis.zcard(w.key), 5, 'five distinct hits');
  const other = connectRedis(server.url, 'rate-limit-test-3');
  t.teardown(() => other.disconnect());
  const v = { key: redisKeys.rateLimit(freshAccount(), 'bulk'), limit: 20, windowS: 60 };
  const all = await Promise.all(Array.from({ length: 10 }, (_, i) => reserveWindows(i % 2 ? other : redis, [v], 3)));
  t.equal(
    all.reduce((n, r) => n + r.granted, 0),
    20,
    'concurrent reservations never grant more than the limit',
  );
});

t.test('a first reservation made while the client is pipelining other commands still reaches Redis, and so does a refund', async (t) => {
  // As the processes' connections are (connectRedis auto-pipelines): commands issued in one turn of the event
  // loop share a pipeline, and the first reservation comes while one is open.
  const fresh = connectRedis(server.url, 'rate-limit-pipelining-test');
  t.teardown(() => fresh.disconnect());
  await fresh.ping();
  const busy = fresh.get('something-else');
  const reservation = await reserveWindows(fresh, [{ key: redisKeys.rateLimit(freshAccount(), 'pipelined'), limit: 3, windowS: 60 }]);
  await busy;
  t.equal(reservation.granted, 1, 'the place is granted');
  const busyAgain = fresh.get('something-else');
  await refundHits(
    fresh,
    reservation,
    reservation.hits.map((h) => h.key),
  );
  await busyAgain;
  t.equal(await fresh.zcard(reservation.hits[0]!.key), 0, 'and given back');
});
