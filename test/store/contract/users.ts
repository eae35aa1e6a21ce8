// The contract of the users, sessions and application-password repositories: emails unique without regard to
// case and kept as given, hashes kept apart from the user, sessions ended one by one or all but one, names of
// application passwords unique per user.
import { createHash, randomUUID } from 'node:crypto';
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { NewUser } from '../../../shared/store/users.js';
import type { User } from '../../../shared/domain/user.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const newUser = (teamId: number, email: string, fields: Partial<NewUser> = {}): NewUser => ({
  email,
  name: 'Ada',
  role: 'admin',
  teamId,
  passwordHash: '$argon2id$fake',
  mustChangePassword: false,
  ...fields,
});

async function userOf(store: Store, teamId: number, email: string): Promise<User> {
  const user = await store.users.create(newUser(teamId, email));
  if (user === 'email_taken') throw new Error(`${email} is taken`);
  return user;
}

export const userChecks: ContractCheck[] = [
  check('a user is stored with the email as given, found by it in any case, and a second user of that email is refused', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const user = await store.users.create(newUser(account.id, 'Ada.Lovelace@Example.COM', { role: 'owner', mustChangePassword: true }));
    t.match(user, { email: 'Ada.Lovelace@Example.COM', name: 'Ada', role: 'owner', teamId: account.id, mustChangePassword: true });
    if (user === 'email_taken') return;
    t.same(await store.users.get(user.id), user);
    t.same(await store.users.findByEmail('ada.lovelace@example.com'), user, 'found whatever the case');
    t.equal(await store.users.findByEmail('ada@example.com'), undefined);
    t.equal(await store.users.create(newUser(account.id, 'ADA.LOVELACE@example.com')), 'email_taken');
    const other = await accountOf(store);
    t.equal(await store.users.create(newUser(other.id, 'ada.lovelace@example.com')), 'email_taken', 'unique across the product');
    t.notOk('passwordHash' in user, 'the hash is not part of the user');
    t.equal(await store.users.passwordHash(user.id), '$argon2id$fake');
  }),

  check('a password change replaces the hash and the must-change flag; a profile change refuses a taken email', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const ada = await userOf(store, account.id, 'ada@example.com');
    const bob = await userOf(store, account.id, 'bob@example.com');
    t.equal(await store.users.setPassword(ada.id, '$argon2id$new', true), true);
    t.equal(await store.users.passwordHash(ada.id), '$argon2id$new');
    t.equal((await store.users.get(ada.id))?.mustChangePassword, true);
    t.equal(await store.users.setPassword(999_999, 'x', false), false, 'no such user');
    t.match(await store.users.update(ada.id, { name: 'Ada L.' }), { name: 'Ada L.', email: 'ada@example.com' }, 'only the name changes');
    t.equal(await store.users.update(ada.id, { email: 'BOB@example.com' }), 'email_taken');
    t.equal((await store.users.get(ada.id))?.email, 'ada@example.com', 'nothing changed');
    t.match(await store.users.update(ada.id, { email: 'Ada@Example.org' }), { email: 'Ada@Example.org', name: 'Ada L.' });
    t.match(await store.users.update(bob.id, { email: 'bob@example.com' }), { email: 'bob@example.com' }, 'its own email is no conflict');
    t.equal(await store.users.update(999_999, { name: 'x' }), undefined);
    t.same(
      (await store.users.listByTeam(account.id)).map((u) => u.id),
      [ada.id, bob.id],
    );
  }),

  check('sessions are found by their token hash, slide forward only, and end one by one or all but one', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const ada = await userOf(store, account.id, 'ada@example.com');
    const bob = await userOf(store, account.id, 'bob@example.com');
    const at = '2024-01-10T10:00:00.000Z';
    const first = await store.sessions.create({ userId: ada.id, tokenHash: sha('one'), userAgent: 'Firefox', address: '192.0.2.1', at });
    t.match(first, { userId: ada.id, tokenHash: sha('one'), userAgent: 'Firefox', address: '192.0.2.1', createdAt: at, lastSeenAt: at });
    t.same(await store.sessions.findByTokenHash(sha('one')), first);
    t.equal(await store.sessions.findByTokenHash(sha('unknown')), undefined);
    await store.sessions.touch(first.id, '2024-01-10T11:00:00.000Z');
    await store.sessions.touch(first.id, '2024-01-10T10:30:00.000Z');
    t.equal((await store.sessions.findByTokenHash(sha('one')))?.lastSeenAt, '2024-01-10T11:00:00.000Z', 'last seen never moves back');
    const second = await store.sessions.create({ userId: ada.id, tokenHash: sha('two'), userAgent: '', address: '', at });
    const third = await store.sessions.create({ userId: ada.id, tokenHash: sha('three'), userAgent: '', address: '', at });
    const bobs = await store.sessions.create({ userId: bob.id, tokenHash: sha('bob'), userAgent: '', address: '', at });
    t.equal(await store.sessions.remove(second.id), true);
    t.equal(await store.sessions.remove(second.id), false, 'removed once');
    t.equal(await store.sessions.removeForUser(ada.id, third.id), 1, 'every other session of the user ends');
    t.same(
      (await store.sessions.listForUser(ada.id)).map((s) => s.id),
      [third.id],
    );
    t.equal(await store.sessions.removeForUser(ada.id), 1);
    t.same(await store.sessions.listForUser(ada.id), []);
    t.same(await store.sessions.findByTokenHash(sha('bob')), bobs, 'another user’s session stays');
  }),

  check('application passwords: names unique per user, found by hash, revoked by their user only, last use recorded', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const ada = await userOf(store, account.id, 'ada@example.com');
    const bob = await userOf(store, account.id, 'bob@example.com');
    const at = '2024-01-10T10:00:00.000Z';
    const appId = randomUUID();
    const created = await store.applicationPasswords.create({ uuid: randomUUID(), userId: ada.id, name: 'CLI', appId, passwordHash: sha('p1'), at });
    if (created === 'name_taken') throw new Error('first of its name');
    t.match(created, { userId: ada.id, name: 'CLI', appId, createdAt: at, lastUsedAt: null, lastIp: null });
    t.notOk('passwordHash' in created, 'the hash is not part of the record');
    t.equal(await store.applicationPasswords.create({ uuid: randomUUID(), userId: ada.id, name: 'CLI', appId: null, passwordHash: sha('p2'), at }), 'name_taken');
    t.not(await store.applicationPasswords.create({ uuid: randomUUID(), userId: bob.id, name: 'CLI', appId: null, passwordHash: sha('p3'), at }), 'name_taken');
    t.same(await store.applicationPasswords.findByHash(sha('p1')), created);
    t.equal(await store.applicationPasswords.findByHash(sha('p2')), undefined, 'the refused one was not stored');
    await store.applicationPasswords.recordUse(created.uuid, '2024-01-11T00:00:00.000Z', '198.51.100.7');
    t.match(await store.applicationPasswords.findByHash(sha('p1')), { lastUsedAt: '2024-01-11T00:00:00.000Z', lastIp: '198.51.100.7' });
    t.equal(await store.applicationPasswords.revoke(bob.id, created.uuid), false, 'not through another user');
    t.equal((await store.applicationPasswords.list(ada.id)).length, 1);
    t.equal(await store.applicationPasswords.revoke(ada.id, created.uuid), true);
    t.same(await store.applicationPasswords.list(ada.id), []);
    t.equal(await store.applicationPasswords.findByHash(sha('p1')), undefined);
  }),

  check('operators are users on no team, listed oldest first apart from every account user', async (t, engine) => {
    const { store } = await engine.open(t);
    t.same(await store.users.listOperators(), []);
    const account = await accountOf(store);
    await userOf(store, account.id, 'owner@example.com');
    const first = await store.users.create({ email: 'Op1@tern.test', name: 'One', role: 'operator', passwordHash: 'x', mustChangePassword: true });
    const second = await store.users.create({ email: 'op2@tern.test', name: 'Two', role: 'operator', passwordHash: 'x', mustChangePassword: false });
    t.match(first, { email: 'Op1@tern.test', role: 'operator', mustChangePassword: true });
    t.notOk(first !== 'email_taken' && 'teamId' in first, 'an operator is on no team');
    t.same(await store.users.listOperators(), [first, second]);
    t.equal(await store.users.create({ email: 'OWNER@example.com', name: '', role: 'operator', passwordHash: 'x', mustChangePassword: false }), 'email_taken');
    t.equal((await store.users.listOperators()).length, 2);
  }),
];
