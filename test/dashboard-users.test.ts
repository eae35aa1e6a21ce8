// Dashboard users, application passwords, access and login security through the core's use cases, on a real
// Redis and SQLite: users made with one-time passwords, WordPress's application passwords (shown once,
// spaces ignored, revoked, last use recorded), which team a user acts on, and the auth namespace's rules.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { identityWorld } from './helpers/identity-world.js';

const client = { address: '192.0.2.10', userAgent: 'test' };

t.test('a user is made with a 24-character one-time password that must be changed, and the email is checked', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const team = await w.childTeam(account);
  const other = await w.account();
  const made = await w.id.users.create(account.id, { email: 'Eve@Example.com', name: 'Eve', role: 'admin' }, w.rt.log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  t.match(made.value.oneTimePassword, /^[A-Za-z0-9]{24}$/);
  t.match(made.value.user, { email: 'Eve@Example.com', name: 'Eve', role: 'admin', teamId: account.id, mustChangePassword: true });
  const login = await w.id.logins.login({ email: 'eve@example.com', password: made.value.oneTimePassword, ...client }, w.rt.log);
  t.match(login, { ok: true, user: { mustChangePassword: true } }, 'the one-time password logs in, flagged');

  t.same(await w.id.users.create(account.id, { email: 'EVE@example.com', role: 'viewer' }, w.rt.log), { ok: false, refusal: { kind: 'email_taken', field: 'email' } });
  t.match(await w.id.users.create(account.id, { email: 'not-an-email', role: 'viewer' }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'email' } });
  t.match(await w.id.users.create(account.id, { email: 'x@example.com', role: 'root' }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'role' } });
  t.match(
    await w.id.users.create(account.id, { email: 'x@example.com', role: 'owner', teamId: team.id }, w.rt.log),
    { refusal: { kind: 'invalid_field', field: 'role' } },
    'an owner belongs to an account',
  );
  t.match(
    await w.id.users.create(team.id, { email: 'x@example.com', role: 'admin' }, w.rt.log),
    { refusal: { kind: 'not_found', what: 'account' } },
    'a child team is no account',
  );
  t.match(
    await w.id.users.create(account.id, { email: 'x@example.com', role: 'admin', teamId: other.id }, w.rt.log),
    { refusal: { kind: 'not_found', what: 'team' } },
    'another account is not a team of this one',
  );
  t.match(
    await w.id.users.create(account.id, { email: 'x@example.com', role: 'viewer', teamId: team.id }, w.rt.log),
    { ok: true, value: { user: { teamId: team.id } } },
    'a user of one team',
  );
});

t.test('a password reset gives a new one-time password and ends every session', async (t) => {
  const w = await identityWorld(t);
  const { user, password } = await w.user(await w.account(), { email: 'fay@example.com' });
  const login = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  if (!login.ok) throw new Error('login');
  const reset = await w.id.users.resetPassword('FAY@example.com', w.rt.log);
  if (!reset.ok) throw new Error('reset');
  t.match(reset.value.oneTimePassword, /^[A-Za-z0-9]{24}$/);
  t.equal(reset.value.user.mustChangePassword, true);
  t.same(await w.id.sessions.resume(login.token), { ok: false, reason: 'unknown' }, 'the session ended');
  t.match(await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log), { refusal: { kind: 'invalid_credentials' } });
  t.match(await w.id.logins.login({ email: user.email, password: reset.value.oneTimePassword, ...client }, w.rt.log), { ok: true, user: { mustChangePassword: true } });
  t.match(await w.id.users.resetPassword('nobody@example.com', w.rt.log), { refusal: { kind: 'not_found', what: 'user' } });
});

t.test('a profile change: the name freely, the email only with the current password', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user, password } = await w.user(account, { email: 'gus@example.com' });
  await w.user(account, { email: 'taken@example.com' });
  t.match(await w.id.users.updateProfile(user, { name: 'Gus' }, w.rt.log), { ok: true, value: { name: 'Gus', email: 'gus@example.com' } });
  t.same(await w.id.users.updateProfile(user, { email: 'gus@example.org' }, w.rt.log), { ok: false, refusal: { kind: 'missing_field', field: 'current_password' } });
  t.same(await w.id.users.updateProfile(user, { email: 'gus@example.org', currentPassword: 'wrong password!' }, w.rt.log), {
    ok: false,
    refusal: { kind: 'incorrect_password', field: 'current_password' },
  });
  t.same(await w.id.users.updateProfile(user, { email: 'Taken@example.com', currentPassword: password }, w.rt.log), {
    ok: false,
    refusal: { kind: 'email_taken', field: 'email' },
  });
  t.match(await w.id.users.updateProfile(user, { email: 'bad', currentPassword: password }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'email' } });
  t.match(await w.id.users.updateProfile(user, { email: 'Gus@Example.org', currentPassword: password }, w.rt.log), {
    ok: true,
    value: { email: 'Gus@Example.org', name: 'Gus' },
  });
  t.ok((await w.id.logins.login({ email: 'gus@example.org', password, ...client }, w.rt.log)).ok, 'the new email logs in');
});

t.test('application passwords: shown once in groups of four, spaces ignored, no nonce needed, last use recorded, revoked', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user } = await w.user(account, { email: 'Hal@example.com' });
  const appId = randomUUID();
  const created = await w.id.applicationPasswords.create(user, { name: 'Deploy bot', appId }, w.rt.log);
  if (!created.ok) throw new Error(JSON.stringify(created.refusal));
  t.match(created.value.password, /^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/, '24 characters in six groups of four');
  t.match(created.value, { name: 'Deploy bot', appId });
  const listed = await w.id.applicationPasswords.list(user);
  t.same(
    listed.map((p) => [p.uuid, p.name, p.appId, p.lastUsedAt]),
    [[created.value.uuid, 'Deploy bot', appId, null]],
  );
  t.notOk(JSON.stringify(listed).includes(created.value.password.replace(/ /g, '')), 'the secret is never listed');

  const spaced = await w.id.applicationPasswords.authenticate('hal@example.com', created.value.password, '198.51.100.9');
  t.match(spaced, { ok: true, value: { user: { id: user.id }, applicationPassword: { uuid: created.value.uuid, lastIp: '198.51.100.9' } } }, 'as shown, spaces and all');
  const joined = await w.id.applicationPasswords.authenticate('HAL@example.com', created.value.password.replace(/ /g, ''), '198.51.100.10');
  t.ok(joined.ok, 'without the spaces');
  const [used] = await w.id.applicationPasswords.list(user);
  t.match(used, { lastIp: '198.51.100.10' });
  t.ok(used?.lastUsedAt, 'last use recorded');

  const other = await w.user(account, { email: 'ivy@example.com' });
  t.same(
    await w.id.applicationPasswords.authenticate(other.user.email, created.value.password, '198.51.100.9'),
    { ok: false, refusal: { kind: 'invalid_credentials' } },
    'another user’s email',
  );
  t.same(await w.id.applicationPasswords.authenticate(user.email, 'abcd efgh ijkl mnop qrst uvwx', '198.51.100.9'), {
    ok: false,
    refusal: { kind: 'invalid_credentials' },
  });
  t.same(await w.id.applicationPasswords.revoke(other.user, created.value.uuid, w.rt.log), {
    ok: false,
    refusal: { kind: 'not_found', what: 'application_password', message: 'Application password not found' },
  });
  t.same(await w.id.applicationPasswords.revoke(user, created.value.uuid, w.rt.log), { ok: true, value: undefined });
  t.match(
    await w.id.applicationPasswords.authenticate(user.email, created.value.password, '198.51.100.9'),
    { refusal: { kind: 'invalid_credentials' } },
    'refused once revoked',
  );
  t.same(await w.id.applicationPasswords.list(user), []);
});

t.test('application passwords refuse a bad app id, a blank name and a name the user already has', async (t) => {
  const w = await identityWorld(t);
  const { user } = await w.user(await w.account());
  t.match(await w.id.applicationPasswords.create(user, { name: 'CLI', appId: 'not-a-uuid' }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'app_id' } });
  t.match(await w.id.applicationPasswords.create(user, { name: '   ' }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'name' } });
  t.ok((await w.id.applicationPasswords.create(user, { name: 'CLI' }, w.rt.log)).ok);
  t.same(await w.id.applicationPasswords.create(user, { name: 'CLI' }, w.rt.log), { ok: false, refusal: { kind: 'name_taken', field: 'name' } });
  t.equal((await w.id.applicationPasswords.list(user)).length, 1, 'nothing stored by the refusals');
});

t.test('access: a user of an account reaches its teams, a team user only its own, another account nothing', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const team = await w.childTeam(account);
  const sibling = await w.childTeam(account);
  const elsewhere = await w.account();
  const elsewhereTeam = await w.childTeam(elsewhere);
  const { user: accountUser } = await w.user(account, { role: 'viewer' });
  const { user: teamUser } = await w.user(team, { role: 'admin' });
  const acting = async (u: typeof accountUser, id?: number) => {
    const r = await w.id.access.actingTeam(u, id);
    return r.ok ? r.value.id : r.refusal.kind;
  };
  t.equal(await acting(accountUser), account.id, 'its own account without X-Account-Id');
  t.equal(await acting(accountUser, team.id), team.id);
  t.equal(await acting(accountUser, sibling.id), sibling.id);
  t.equal(await acting(accountUser, elsewhere.id), 'not_found', 'another account');
  t.equal(await acting(accountUser, elsewhereTeam.id), 'not_found', 'another account’s team');
  t.equal(await acting(accountUser, 999_999), 'not_found');
  t.equal(await acting(teamUser), team.id);
  t.equal(await acting(teamUser, team.id), team.id);
  t.equal(await acting(teamUser, sibling.id), 'not_found', 'a team user asking for another team');
  t.equal(await acting(teamUser, account.id), 'not_found', 'nor its account');
});

t.test('permissions by role: read for all, write for owner and admin, owner for the owner', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const roles = {
    owner: (await w.user(account, { role: 'owner' })).user,
    admin: (await w.user(account, { role: 'admin' })).user,
    viewer: (await w.user(account, { role: 'viewer' })).user,
  };
  const table = Object.fromEntries(Object.entries(roles).map(([role, u]) => [role, (['read', 'write', 'owner'] as const).filter((p) => w.id.access.allows(u, p))]));
  t.same(table, { owner: ['read', 'write', 'owner'], admin: ['read', 'write'], viewer: ['read'] });
  t.same(w.id.access.permit(roles.viewer, 'write'), { ok: false, refusal: { kind: 'forbidden', need: 'write' } });
  t.same(w.id.access.permit(roles.admin, 'write'), { ok: true, value: undefined });
});

const PRODUCT_DEFAULTS = {
  failuresPerEmail: 5,
  windowMinutes: 15,
  sessionIdleMinutes: 120,
  sessionAbsoluteHours: 24,
  notifyOnLockout: false,
  logRetentionDays: 90,
  applicationPasswords: true,
  twoStepRoles: [],
  magicLink: false,
};

t.test('login security: only an owner or admin of the account; settings bounded, the log paged, deleted, truncated (by an owner), counted', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const team = await w.childTeam(account);
  const { user: admin } = await w.user(account, { role: 'admin' });
  const { user: viewer } = await w.user(account, { role: 'viewer' });
  const { user: teamAdmin } = await w.user(team, { role: 'admin' });
  const forbidden = { ok: false, refusal: { kind: 'forbidden', need: 'account_admin' } };
  t.same(await w.id.loginSecurity.settings(viewer), forbidden, 'a viewer');
  t.same(await w.id.loginSecurity.settings(teamAdmin), forbidden, 'an admin of a team, not of the account');
  t.same(await w.id.loginSecurity.authLog(teamAdmin, { page: 1, perPage: 10 }), forbidden);
  t.same(await w.id.loginSecurity.settings(admin), { ok: true, value: { ...PRODUCT_DEFAULTS } }, 'the product’s defaults');
  t.match(await w.id.loginSecurity.updateSettings(admin, { failuresPerEmail: 0 }, w.rt.log), { refusal: { kind: 'invalid_field', field: 'failuresPerEmail' } });
  t.match(await w.id.loginSecurity.updateSettings(admin, { sessionIdleMinutes: 60, sessionAbsoluteHours: 1000 }, w.rt.log), {
    refusal: { kind: 'invalid_field', field: 'sessionAbsoluteHours' },
  });
  t.match(await w.id.loginSecurity.settings(admin), { value: { sessionIdleMinutes: 120 } }, 'a refused change changes nothing');
  t.same(await w.id.loginSecurity.updateSettings(admin, { failuresPerEmail: 8 }, w.rt.log), {
    ok: true,
    value: { ...PRODUCT_DEFAULTS, failuresPerEmail: 8 },
  });

  for (let i = 0; i < 3; i++) await w.id.logins.login({ email: viewer.email, password: 'wrong password!', ...client }, w.rt.log);
  const page = await w.id.loginSecurity.authLog(admin, { page: 1, perPage: 2 });
  if (!page.ok) throw new Error('admin reads');
  t.equal(page.value.total, 3);
  t.equal(page.value.rows.length, 2);
  t.ok(page.value.rows[0]!.id > page.value.rows[1]!.id, 'newest first');
  t.same(await w.id.loginSecurity.deleteEntry(admin, page.value.rows[0]!.id), { ok: true, value: undefined });
  t.match(await w.id.loginSecurity.deleteEntry(admin, page.value.rows[0]!.id), { refusal: { kind: 'not_found', what: 'auth_log_entry' } });
  t.match(await w.id.loginSecurity.quickStats(admin), { ok: true, value: { last24h: { attempts: 2, failures: 2, lockouts: 0 }, last7d: { attempts: 2 } } });
  w.clock.advance(2 * 86_400_000);
  t.match(await w.id.loginSecurity.quickStats(admin), { value: { last24h: { attempts: 0 }, last7d: { attempts: 2, failures: 2 } } }, 'two days later');
  t.match(await w.id.loginSecurity.truncate(admin, w.rt.log), { refusal: { kind: 'forbidden', need: 'account_owner' } }, 'an admin may not truncate');
  const { user: owner } = await w.user(account, { role: 'owner' });
  t.same(await w.id.loginSecurity.truncate(owner, w.rt.log), { ok: true, value: { removed: 2 } }, 'an owner may');
  t.match(await w.id.loginSecurity.authLog(admin, { page: 1, perPage: 10 }), { value: { total: 0 } });
});
