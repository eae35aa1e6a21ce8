// The contract of the users, sessions and application-password repositories: emails unique without regard to
// case and kept as given, hashes kept apart from the user, sessions ended one by one or all but one, names of
// application passwords unique per user.
import { createHash, randomUUID } from 'node:crypto';
import { accountOf, check, operatorOf, teamOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { NewProfiledUser, NewUser, UserListQuery } from '../../../shared/store/users.js';
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
  check('a profiled user: username and email each unique without regard to case, a profile kept and changed, the username never', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const profiled = (email: string, username: string, fields: Partial<NewProfiledUser['profile']> = {}): NewProfiledUser => ({
      ...newUser(account.id, email),
      profile: { username, ...fields },
    });
    const made = await store.users.createProfiled(profiled('Wes@example.com', 'Wes.Anderson', { firstName: 'Wes', url: 'https://wes.example' }));
    if (typeof made === 'string') throw new Error(made);
    t.match(made.profile, { username: 'Wes.Anderson', slug: 'wes-anderson', firstName: 'Wes', lastName: '', url: 'https://wes.example', locale: '' });
    t.same(await store.users.profiled(made.user.id), made);
    t.equal(await store.users.createProfiled(profiled('other@example.com', 'wes.anderson')), 'username_taken');
    t.equal(await store.users.createProfiled(profiled('WES@example.com', 'someone')), 'email_taken');
    const plain = await userOf(store, account.id, 'Plain@Example.com');
    t.match(
      await store.users.profiled(plain.id),
      { profile: { username: 'Plain@Example.com', slug: 'plain-example-com' } },
      'a user made without one has its email as username',
    );
    t.equal(await store.users.createProfiled(profiled('new@example.com', 'plain@example.com')), 'username_taken', 'which no one else may take');

    const changed = await store.users.updateProfiled(made.user.id, { name: 'W. A.', lastName: 'Anderson', description: 'Films', role: 'viewer', slug: 'wes' });
    t.match(changed, {
      user: { name: 'W. A.', role: 'viewer', email: 'Wes@example.com' },
      profile: { username: 'Wes.Anderson', slug: 'wes', firstName: 'Wes', lastName: 'Anderson', description: 'Films' },
    });
    t.equal(await store.users.updateProfiled(made.user.id, { email: 'plain@example.com', name: 'Not Kept' }), 'email_taken');
    t.match(await store.users.profiled(made.user.id), { user: { name: 'W. A.', email: 'Wes@example.com' } }, 'nothing changed');
    t.equal(await store.users.updateProfiled(999_999, { name: 'x' }), undefined);

    t.equal(await store.users.remove(made.user.id), true);
    t.equal(await store.users.profiled(made.user.id), undefined);
    t.equal(await store.users.remove(made.user.id), false);
    t.equal((await store.users.createProfiled(profiled('wes@example.com', 'Wes.Anderson'))) !== 'username_taken', true, 'the name is free again');
  }),

  check('profiled users are listed in an account (its teams too) or all, filtered, ordered and counted', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const team = await teamOf(store, account);
    const other = await accountOf(store);
    const made: number[] = [];
    for (const [teamId, email, username, role] of [
      [account.id, 'cat@example.com', 'cat', 'owner'],
      [team.id, 'ann@example.com', 'ann', 'viewer'],
      [account.id, 'bob@example.com', 'bob', 'admin'],
      [other.id, 'zed@example.com', 'zed', 'owner'],
    ] as const) {
      const u = await store.users.createProfiled({ ...newUser(teamId, email, { role }), name: username.toUpperCase(), profile: { username } });
      if (typeof u === 'string') throw new Error(u);
      made.push(u.user.id);
    }
    const operator = await operatorOf(store, 'op@example.com');
    const base: UserListQuery = { scope: { kind: 'account', accountId: account.id }, orderby: 'name', order: 'asc', offset: 0, limit: 10 };
    const names = async (q: Partial<UserListQuery>) => {
      const page = await store.users.listProfiled({ ...base, ...q });
      return { names: page.items.map((u) => u.profile.username), total: page.total };
    };
    t.same(await names({}), { names: ['ann', 'bob', 'cat'], total: 3 }, "the account's users and its teams'");
    t.same(await names({ order: 'desc', limit: 2 }), { names: ['cat', 'bob'], total: 3 });
    t.same(await names({ offset: 2 }), { names: ['cat'], total: 3 });
    t.same(await names({ search: 'B@EX' }), { names: ['bob'], total: 1 }, 'search without regard to case');
    t.same(await names({ search: '%' }), { names: [], total: 0 }, 'a wildcard is a plain character');
    t.same(await names({ roles: ['owner', 'viewer'] }), { names: ['ann', 'cat'], total: 2 });
    t.same(
      await names({ include: [made[2]!, made[0]!, made[3]!], orderby: 'include' }),
      { names: ['bob', 'cat'], total: 2 },
      'in the order given, another account never',
    );
    t.same(await names({ exclude: [made[0]!] }), { names: ['ann', 'bob'], total: 2 });
    t.same(await names({ slugs: ['cat', 'ann'], orderby: 'include_slugs' }), { names: ['cat', 'ann'], total: 2 });
    t.same(await names({ orderby: 'id', order: 'desc' }), { names: ['bob', 'ann', 'cat'], total: 3 });
    t.same(await names({ orderby: 'registered_date' }), { names: ['cat', 'ann', 'bob'], total: 3 });
    const all = await store.users.listProfiled({ ...base, scope: { kind: 'all' }, orderby: 'id' });
    t.same(
      all.items.map((u) => u.user.id),
      [...made, operator.id],
      'every user, operators too',
    );
  }),
];
