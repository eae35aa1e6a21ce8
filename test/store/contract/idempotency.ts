// The contract of the idempotency repository: a team's key is reserved by one request only, even when many
// reserve it at the same moment; its reply is kept for repeats; a lapsed reservation or reply is taken over;
// completion and release act only for the reservation that holds the key; expired rows are swept in batches.
import { accountOf, at, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { HeldKey, NewReservation } from '../../../shared/store/idempotency.js';

const HASH = 'a'.repeat(64);
const OTHER_HASH = 'b'.repeat(64);
const REPLY = { status: 200, body: { message_id: 'm1', to: [], nested: { n: 1.5, none: null } } };

/** A reservation at `at(hour)` holding the key for two minutes. */
function reservation(held: HeldKey, hour = 0, requestHash = HASH): NewReservation {
  const now = Date.parse(at(hour));
  return { ...held, requestHash, at: at(hour), holdUntil: new Date(now + 120_000).toISOString() };
}

async function twoTeams(store: Store): Promise<[number, number]> {
  const [a, b] = await Promise.all([accountOf(store, 0, 'A'), accountOf(store, 0, 'B')]);
  return [a.id, b.id];
}

export const idempotencyChecks: ContractCheck[] = [
  check('of many reservations of one key made at the same moment, exactly one wins and the others see it in progress', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    const tries = Array.from({ length: 8 }, (_, i) => store.idempotency.reserve(reservation({ teamId: team, key: 'race', token: `t${i}` })));
    const found = await Promise.all(tries);
    t.equal(found.filter((f) => f.state === 'reserved').length, 1, found.map((f) => f.state).join(','));
    t.same(
      found.filter((f) => f.state !== 'reserved'),
      Array.from({ length: 7 }, () => ({ state: 'in_progress', requestHash: HASH })),
    );
  }),

  check('a completed reply is returned to a repeat with its request hash, and is neither completed again nor released', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    const held = { teamId: team, key: 'order-1', token: 'first' };
    t.same(await store.idempotency.reserve(reservation(held)), { state: 'reserved' });
    t.equal(await store.idempotency.complete({ ...held, token: 'stranger' }, REPLY, at(0), at(24)), false, 'another token completes nothing');
    t.equal(await store.idempotency.complete(held, REPLY, at(0), at(24)), true);
    const repeat = { teamId: team, key: 'order-1', token: 'second' };
    t.same(await store.idempotency.reserve(reservation(repeat, 1)), { state: 'completed', requestHash: HASH, reply: REPLY });
    t.same(await store.idempotency.reserve(reservation(repeat, 2, OTHER_HASH)), { state: 'completed', requestHash: HASH, reply: REPLY }, 'whatever the content');
    t.equal(await store.idempotency.complete(held, { status: 200, body: 'other' }, at(1), at(25)), false, 'completed once');
    t.equal(await store.idempotency.release(held), false, 'a completed reply is not released');
    t.same(await store.idempotency.reserve(reservation(repeat, 3)), { state: 'completed', requestHash: HASH, reply: REPLY });
  }),

  check('a released key is reserved again by the next request; a release by another token frees nothing', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    const held = { teamId: team, key: 'retry-me', token: 'first' };
    await store.idempotency.reserve(reservation(held));
    t.equal(await store.idempotency.release({ ...held, token: 'stranger' }), false);
    t.same(await store.idempotency.reserve(reservation({ ...held, token: 'second' })), { state: 'in_progress', requestHash: HASH });
    t.equal(await store.idempotency.release(held), true);
    t.equal(await store.idempotency.release(held), false, 'released once');
    t.same(await store.idempotency.reserve(reservation({ ...held, token: 'third' }, 0, OTHER_HASH)), { state: 'reserved' });
  }),

  check('an expired reservation is taken over by the next one; its lapsed holder can then neither complete nor release the key', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    const lapsed = { teamId: team, key: 'slow', token: 'lapsed' };
    await store.idempotency.reserve(reservation(lapsed, 0));
    const next = { teamId: team, key: 'slow', token: 'next' };
    t.same(await store.idempotency.reserve(reservation(next, 0.01)), { state: 'in_progress', requestHash: HASH }, 'live after 36 s');
    t.same(await store.idempotency.reserve(reservation(next, 1, OTHER_HASH)), { state: 'reserved' }, 'taken over after an hour');
    t.equal(await store.idempotency.complete(lapsed, REPLY, at(1), at(25)), false);
    t.equal(await store.idempotency.release(lapsed), false);
    t.same(await store.idempotency.reserve(reservation({ ...next, token: 'third' }, 1)), { state: 'in_progress', requestHash: OTHER_HASH }, "the new holder's");
    t.equal(await store.idempotency.complete(next, REPLY, at(1), at(25)), true);
  }),

  check('of many takeovers of one expired reservation at the same moment, exactly one wins', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    await store.idempotency.reserve(reservation({ teamId: team, key: 'stale', token: 'crashed' }, 0));
    const tries = Array.from({ length: 8 }, (_, i) => store.idempotency.reserve(reservation({ teamId: team, key: 'stale', token: `t${i}` }, 1, OTHER_HASH)));
    const found = await Promise.all(tries);
    t.equal(found.filter((f) => f.state === 'reserved').length, 1, found.map((f) => f.state).join(','));
    t.ok(
      found.every((f) => f.state === 'reserved' || (f.state === 'in_progress' && f.requestHash === OTHER_HASH)),
      'the others see the winner',
    );
  }),

  check('an expired reply is as good as none: the next request with its key reserves it', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    const held = { teamId: team, key: 'daily', token: 'first' };
    await store.idempotency.reserve(reservation(held, 0));
    await store.idempotency.complete(held, REPLY, at(0), at(24));
    t.same(await store.idempotency.reserve(reservation({ ...held, token: 'early' }, 23.9)), { state: 'completed', requestHash: HASH, reply: REPLY });
    t.same(await store.idempotency.reserve(reservation({ ...held, token: 'late' }, 24)), { state: 'reserved' });
  }),

  check('the same key of two teams is two keys: each is reserved, completed and replayed on its own', async (t, engine) => {
    const { store } = await engine.open(t);
    const [a, b] = await twoTeams(store);
    const ofA = { teamId: a, key: 'shared-value', token: 'a' };
    const ofB = { teamId: b, key: 'shared-value', token: 'b' };
    t.same(await store.idempotency.reserve(reservation(ofA)), { state: 'reserved' });
    t.same(await store.idempotency.reserve(reservation(ofB, 0, OTHER_HASH)), { state: 'reserved' });
    await store.idempotency.complete(ofA, REPLY, at(0), at(24));
    t.equal(await store.idempotency.release({ ...ofA, teamId: b }), false, "A's token does not release B's key");
    t.same(await store.idempotency.reserve(reservation({ ...ofB, token: 'again' }, 0.01, OTHER_HASH)), { state: 'in_progress', requestHash: OTHER_HASH });
    t.same(await store.idempotency.reserve(reservation({ ...ofA, token: 'again' }, 1)), { state: 'completed', requestHash: HASH, reply: REPLY });
  }),

  check('a sweep removes only what expired by its time, at most its limit at a time', async (t, engine) => {
    const { store } = await engine.open(t);
    const [team] = await twoTeams(store);
    for (const key of ['r1', 'r2', 'r3']) await store.idempotency.reserve(reservation({ teamId: team, key, token: key }, 0));
    const kept = { teamId: team, key: 'kept', token: 'kept' };
    await store.idempotency.reserve(reservation(kept, 0));
    await store.idempotency.complete(kept, REPLY, at(0), at(24));
    const live = { teamId: team, key: 'live', token: 'live' };
    await store.idempotency.reserve(reservation(live, 1));
    t.equal(await store.idempotency.sweep(at(1), 2), 2, 'two of the three lapsed reservations');
    t.equal(await store.idempotency.sweep(at(1), 2), 1, 'then the third');
    t.equal(await store.idempotency.sweep(at(1), 2), 0);
    t.same(await store.idempotency.reserve(reservation({ ...kept, token: 'repeat' }, 1)), { state: 'completed', requestHash: HASH, reply: REPLY }, 'the reply stays');
    t.same(await store.idempotency.reserve(reservation({ ...live, token: 'repeat' }, 1)), { state: 'in_progress', requestHash: HASH }, 'the live reservation stays');
    t.equal(await store.idempotency.complete(live, REPLY, at(1), at(25)), true);
    t.equal(await store.idempotency.sweep(at(24), 10), 1, 'the reply, once expired');
    t.same(await store.idempotency.reserve(reservation({ ...kept, token: 'after' }, 24)), { state: 'reserved' });
  }),
];
