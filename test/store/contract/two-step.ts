// The contract of two-step sign-in challenges: one unused challenge per user (a new one replaces it), a code
// that signs in once, wrong codes counted up to the limit, nothing after the expiry, expired ones removed.
import { accountOf, at, check, type ContractCheck } from './fixtures.js';

export const twoStepChallengeChecks: ContractCheck[] = [
  check('a two-step challenge signs in once with its code, counts wrong codes up to the limit, and ends at its expiry', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const made = await store.users.create({
      teamId: account.id,
      email: `two.${Date.now()}@example.com`,
      name: '',
      role: 'owner',
      passwordHash: 'x'.repeat(60),
      mustChangePassword: false,
    });
    if (made === 'email_taken') throw new Error('taken');
    const hash = (c: string) => c.repeat(64).slice(0, 64);
    const challenge = (token: string, code: string, expiresAt = at(10)) =>
      store.twoStepChallenges.create({ tokenHash: hash(token), userId: made.id, codeHash: hash(code), at: at(0), expiresAt });
    await challenge('a', '1');
    t.equal(await store.twoStepChallenges.userOf(hash('a')), made.id);
    t.equal(await store.twoStepChallenges.userOf(hash('z')), undefined);
    t.same(await store.twoStepChallenges.attempt(hash('a'), hash('2'), at(1), 2), { outcome: 'wrong', userId: made.id, triesLeft: 1 });
    t.same(await store.twoStepChallenges.attempt(hash('a'), hash('1'), at(1), 2), { outcome: 'used', userId: made.id });
    t.same(await store.twoStepChallenges.attempt(hash('a'), hash('1'), at(1), 2), { outcome: 'spent', userId: made.id }, 'used once');

    await challenge('b', '1');
    await challenge('c', '3');
    t.same(await store.twoStepChallenges.attempt(hash('b'), hash('1'), at(1), 5), { outcome: 'unknown' }, 'a newer challenge replaces the unused one');
    t.same(await store.twoStepChallenges.attempt(hash('c'), hash('4'), at(1), 2), { outcome: 'wrong', userId: made.id, triesLeft: 1 });
    t.same(await store.twoStepChallenges.attempt(hash('c'), hash('4'), at(1), 2), { outcome: 'wrong', userId: made.id, triesLeft: 0 });
    t.same(await store.twoStepChallenges.attempt(hash('c'), hash('3'), at(1), 2), { outcome: 'spent', userId: made.id }, 'out of tries, the right code too');

    await challenge('d', '5', at(2));
    t.same(await store.twoStepChallenges.attempt(hash('d'), hash('5'), at(2), 5), { outcome: 'spent', userId: made.id }, 'not at its expiry');
    t.same(await store.twoStepChallenges.attempt(hash('y'), hash('5'), at(1), 5), { outcome: 'unknown' });
    t.equal(
      await store.twoStepChallenges.removeExpired(at(11)),
      2,
      'every challenge expired before the time (the used one, and the unused one that replaced the others)',
    );
    t.equal(await store.twoStepChallenges.userOf(hash('d')), undefined);
  }),

  check('of tries of one challenge made at the same moment, one right code signs in once and wrong ones never pass the limit', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const made = await store.users.create({
      teamId: account.id,
      email: `race.${Date.now()}@example.com`,
      name: '',
      role: 'owner',
      passwordHash: 'x'.repeat(60),
      mustChangePassword: false,
    });
    if (made === 'email_taken') throw new Error('taken');
    const hash = (c: string) => c.repeat(64).slice(0, 64);
    await store.twoStepChallenges.create({ tokenHash: hash('a'), userId: made.id, codeHash: hash('1'), at: at(0), expiresAt: at(10) });
    const right = await Promise.all(Array.from({ length: 6 }, () => store.twoStepChallenges.attempt(hash('a'), hash('1'), at(1), 5)));
    t.equal(right.filter((r) => r.outcome === 'used').length, 1, 'one sign-in');
    t.equal(right.filter((r) => r.outcome === 'spent').length, 5, 'the others find it used');

    await store.twoStepChallenges.create({ tokenHash: hash('b'), userId: made.id, codeHash: hash('1'), at: at(0), expiresAt: at(10) });
    const wrong = await Promise.all(Array.from({ length: 8 }, () => store.twoStepChallenges.attempt(hash('b'), hash('2'), at(1), 3)));
    t.equal(wrong.filter((r) => r.outcome === 'wrong').length, 3, 'three wrong tries counted, the limit');
    t.equal(wrong.filter((r) => r.outcome === 'spent').length, 5, 'the rest find it out of tries');
    t.same(await store.twoStepChallenges.attempt(hash('b'), hash('1'), at(1), 3), { outcome: 'spent', userId: made.id }, 'the right code too');
  }),
];
