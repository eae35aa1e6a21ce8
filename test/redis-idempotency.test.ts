// The Redis keeper of Idempotency-Key replies (the default beside SQLite) against a real redis-server: the same
// promises as the database's (test/store/contract/idempotency.ts), with Redis's own clock ending reservations.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '../shared/redis.js';
import { RedisIdempotency } from '../shared/core/sending/redis-idempotency.js';
import type { HeldKey, NewReservation } from '../shared/store/idempotency.js';
import { startRedis } from './harness/redis.js';

const server = await startRedis({ appendOnly: false });
const redis = connectRedis(server.url, 'idempotency-test');
t.teardown(async () => {
  redis.disconnect();
  await server.stop();
});
const replies = new RedisIdempotency(redis);

const HASH = 'a'.repeat(64);
const OTHER_HASH = 'b'.repeat(64);
/** An empty array and a null, which a script that decoded and re-encoded the reply would turn into {} and drop. */
const REPLY = { status: 200, body: { message_id: 'm1', to: [], nested: { n: 1.5, none: null } } };

let teams = 0;
const team = () => ++teams;

function reservation(held: HeldKey, holdMs = 120_000, requestHash = HASH): NewReservation {
  const now = Date.now();
  return { ...held, requestHash, at: new Date(now).toISOString(), holdUntil: new Date(now + holdMs).toISOString() };
}
const day = () => [new Date().toISOString(), new Date(Date.now() + 86_400_000).toISOString()] as const;

t.test('of many reservations of one key made at the same moment, exactly one wins and the others see it in progress', async (t) => {
  const teamId = team();
  const found = await Promise.all(Array.from({ length: 8 }, (_, i) => replies.reserve(reservation({ teamId, key: 'race', token: `t${i}` }))));
  t.equal(found.filter((f) => f.state === 'reserved').length, 1);
  t.ok(found.every((f) => f.state === 'reserved' || (f.state === 'in_progress' && f.requestHash === HASH)));
});

t.test('a completed reply is returned to a repeat as it was given, and is neither completed again nor released', async (t) => {
  const held = { teamId: team(), key: 'order-1', token: 'first' };
  t.same(await replies.reserve(reservation(held)), { state: 'reserved' });
  t.equal(await replies.complete({ ...held, token: 'stranger' }, REPLY, ...day()), false, 'another token completes nothing');
  t.equal(await replies.complete(held, REPLY, ...day()), true);
  t.same(await replies.reserve(reservation({ ...held, token: 'repeat' }, 120_000, OTHER_HASH)), { state: 'completed', requestHash: HASH, reply: REPLY });
  t.equal(await replies.complete(held, { status: 200, body: 'other' }, ...day()), false, 'completed once');
  t.equal(await replies.release(held), false, 'a completed reply is not released');
  t.ok((await redis.pttl(`tern:idem:${held.teamId}:order-1`)) > 86_000_000, 'kept for a day');
});

t.test('a released key is reserved again; a release by another token frees nothing', async (t) => {
  const held = { teamId: team(), key: 'retry-me', token: 'first' };
  await replies.reserve(reservation(held));
  t.equal(await replies.release({ ...held, token: 'stranger' }), false);
  t.same(await replies.reserve(reservation({ ...held, token: 'second' })), { state: 'in_progress', requestHash: HASH });
  t.equal(await replies.release(held), true);
  t.same(await replies.reserve(reservation({ ...held, token: 'third' }, 120_000, OTHER_HASH)), { state: 'reserved' });
});

t.test('a lapsed reservation is taken over; its holder can then neither complete nor release the key', async (t) => {
  const lapsed = { teamId: team(), key: 'slow', token: 'lapsed' };
  await replies.reserve(reservation(lapsed, 30));
  await sleep(60);
  const next = { ...lapsed, token: 'next' };
  t.same(await replies.reserve(reservation(next, 120_000, OTHER_HASH)), { state: 'reserved' });
  t.equal(await replies.complete(lapsed, REPLY, ...day()), false);
  t.equal(await replies.release(lapsed), false);
  t.same(await replies.reserve(reservation({ ...next, token: 'third' })), { state: 'in_progress', requestHash: OTHER_HASH });
});

t.test('the same key of two teams is two keys', async (t) => {
  const [a, b] = [team(), team()];
  t.same(await replies.reserve(reservation({ teamId: a, key: 'shared', token: 'a' })), { state: 'reserved' });
  t.same(await replies.reserve(reservation({ teamId: b, key: 'shared', token: 'b' })), { state: 'reserved' });
  t.equal(await replies.release({ teamId: b, key: 'shared', token: 'a' }), false);
});
