// Dashboard login, sessions and nonces through the core's use cases, on a real Redis and SQLite: a new token
// at every login, one answer for an unknown email and a wrong password, throttling with a wait, every attempt
// logged; idle and absolute expiry, logout, a password change ending the other sessions; WordPress's nonces.
import t from 'tap';
import { identityWorld } from './helpers/identity-world.js';
import { hashToken } from '../shared/core/identity/sessions.js';
import { isOperator } from '../shared/domain/user.js';

const client = { address: '192.0.2.10', userAgent: 'Mozilla/5.0 (test)' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

t.test('each login makes a new session token, stored only as its hash, and answers the user and a nonce', async (t) => {
  const w = await identityWorld(t);
  const { user, password } = await w.user(await w.account(), { email: 'Ada@Example.com' });
  const first = await w.id.logins.login({ email: 'ada@example.COM', password, ...client }, w.rt.log);
  const second = await w.id.logins.login({ email: 'Ada@Example.com', password, ...client }, w.rt.log);
  if (!first.ok || !second.ok) throw new Error('both logins succeed');
  t.match(first.token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.not(first.token, second.token, 'no fixation: every login has its own token');
  t.equal(first.session.tokenHash, hashToken(first.token), 'the store keeps the sha256 only');
  t.match(first.session, { userId: user.id, address: client.address, userAgent: client.userAgent });
  t.equal(first.user.email, 'Ada@Example.com', 'the email as the user gave it');
  t.match(first.nonce, /^[0-9a-f]{10}$/);
  t.equal(w.id.nonces.verifyNonce(first.session, first.nonce), 'valid');
  const resumed = await w.id.sessions.resume(first.token);
  t.match(resumed, { ok: true, user: { id: user.id } });
});

t.test('an unknown email and a wrong password get the same answer and the same work, and every attempt is logged', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user, password } = await w.user(account, { email: 'bob@example.com' });
  /** The answer, and the median time of three tries (one machine's load should not decide). */
  const timed = async (email: string, pw: string) => {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const started = process.hrtime.bigint();
      const result = await w.id.logins.login({ email, password: pw, ...client, address: `192.0.2.${20 + i}` }, w.rt.log);
      runs.push({ result, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    }
    return { result: runs[0]!.result, ms: runs.map((r) => r.ms).sort((x, y) => x - y)[1]! };
  };
  const unknown = await timed('nobody@example.com', 'wrong password 123');
  const wrong = await timed('bob@example.com', 'wrong password 123');
  t.same(unknown.result, { ok: false, refusal: { kind: 'invalid_credentials' } });
  t.same(wrong.result, unknown.result, 'one answer for both');
  // Both run one Argon2id verification: neither is a fraction of the other.
  t.ok(unknown.ms > wrong.ms / 4 && wrong.ms > unknown.ms / 4, `similar work: unknown ${unknown.ms.toFixed(1)} ms, wrong ${wrong.ms.toFixed(1)} ms`);
  const ok = await w.id.logins.login({ email: 'BOB@example.com', password, address: '198.51.100.1', userAgent: 'curl/8' }, w.rt.log);
  t.ok(ok.ok);
  const owner = (await w.id.users.create(account.id, { email: 'owner@example.com', role: 'owner' }, w.rt.log)) as { ok: true; value: { user: typeof user } };
  const log = await w.id.loginSecurity.authLog(owner.value.user, { page: 1, perPage: 10 });
  if (!log.ok) throw new Error('the owner reads the log');
  t.same(
    log.value.rows.map((e) => [e.email, e.result, e.userId, e.address, e.userAgent]),
    [
      ['BOB@example.com', 'success', user.id, '198.51.100.1', 'curl/8'],
      ...[22, 21, 20].map((n) => ['bob@example.com', 'failure', user.id, `192.0.2.${n}`, client.userAgent]),
    ],
    'the account sees its user’s attempts, newest first, the email as typed',
  );
  const all = await w.rt.store.authLog.list(0, { page: 1, perPage: 10 });
  t.equal(all.total, 0, 'an attempt naming no user belongs to no account');
});

t.test('failures are throttled per email and per address with a retry-after, even for the right password', async (t) => {
  const w = await identityWorld(t, { dashboard: { login: { failuresPerEmail: 3, failuresPerAddress: 5, windowMinutes: 15 } } });
  const { password } = await w.user(await w.account(), { email: 'carol@example.com' });
  for (let i = 0; i < 3; i++)
    t.match(await w.id.logins.login({ email: 'carol@example.com', password: 'nope nope nope', ...client }, w.rt.log), { refusal: { kind: 'invalid_credentials' } });
  const locked = await w.id.logins.login({ email: 'Carol@example.com', password, ...client }, w.rt.log);
  t.match(locked, { ok: false, refusal: { kind: 'throttled' } }, 'the email is locked whatever its case, even with the right password');
  if (!locked.ok && locked.refusal.kind === 'throttled')
    t.ok(locked.refusal.retryAfterS > 14 * 60 && locked.refusal.retryAfterS <= 15 * 60, `retry after ${locked.refusal.retryAfterS} s`);
  // The address: two more failures on other emails reach its limit of 5.
  for (const email of ['x@example.com', 'y@example.com']) await w.id.logins.login({ email, password: 'nope nope nope', ...client }, w.rt.log);
  t.match(
    await w.id.logins.login({ email: 'z@example.com', password: 'whatever 12345', ...client }, w.rt.log),
    { refusal: { kind: 'throttled' } },
    'the address is locked',
  );
  t.match(
    await w.id.logins.login({ email: 'z@example.com', password: 'whatever 12345', ...client, address: '203.0.113.5' }, w.rt.log),
    { refusal: { kind: 'invalid_credentials' } },
    'another address is not',
  );
  const carol = await w.rt.store.users.findByEmail('carol@example.com');
  if (!carol || isOperator(carol)) throw new Error('carol is an account user');
  const stats = await w.rt.store.authLog.stats(carol.teamId, '2000-01-01T00:00:00.000Z');
  t.same(stats, { attempts: 4, failures: 3, lockouts: 1 }, 'the throttled attempt is logged as one');
});

t.test('a success clears the email’s failures', async (t) => {
  const w = await identityWorld(t, { dashboard: { login: { failuresPerEmail: 3, failuresPerAddress: 100, windowMinutes: 15 } } });
  const { password } = await w.user(await w.account(), { email: 'dan@example.com' });
  for (let i = 0; i < 2; i++) await w.id.logins.login({ email: 'dan@example.com', password: 'nope nope nope', ...client }, w.rt.log);
  t.ok((await w.id.logins.login({ email: 'dan@example.com', password, ...client }, w.rt.log)).ok);
  for (let i = 0; i < 2; i++) await w.id.logins.login({ email: 'dan@example.com', password: 'nope nope nope', ...client }, w.rt.log);
  t.ok((await w.id.logins.login({ email: 'dan@example.com', password, ...client }, w.rt.log)).ok, 'two failures after a success do not lock');
});

t.test('a session ends after its idle time, and resuming slides it', async (t) => {
  const w = await identityWorld(t, { dashboard: { session: { idleMinutes: 30, absoluteHours: 24 } } });
  const { user, password } = await w.user(await w.account());
  const login = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  if (!login.ok) throw new Error('login');
  w.clock.advance(29 * MINUTE);
  t.ok((await w.id.sessions.resume(login.token)).ok, 'used within the idle time');
  w.clock.advance(29 * MINUTE);
  t.ok((await w.id.sessions.resume(login.token)).ok, 'the last use moved the idle deadline');
  w.clock.advance(31 * MINUTE);
  t.same(await w.id.sessions.resume(login.token), { ok: false, reason: 'expired' });
  t.same(await w.id.sessions.resume(login.token), { ok: false, reason: 'unknown' }, 'an expired session is removed');
});

t.test('a session ends at its absolute lifetime however often it is used', async (t) => {
  const w = await identityWorld(t, { dashboard: { session: { idleMinutes: 120, absoluteHours: 2 } } });
  const account = await w.account();
  const { user, password } = await w.user(account);
  const login = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  if (!login.ok) throw new Error('login');
  for (let i = 0; i < 3; i++) {
    w.clock.advance(40 * MINUTE);
    t.ok((await w.id.sessions.resume(login.token)).ok, `used at ${(i + 1) * 40} minutes`);
  }
  w.clock.advance(1 * HOUR);
  t.same(await w.id.sessions.resume(login.token), { ok: false, reason: 'expired' }, 'over 2 hours after the login');
});

t.test('an account’s login settings override the product’s session lifetimes', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user: owner } = await w.user(account, { role: 'owner' });
  const { user, password } = await w.user(account, { role: 'viewer' });
  t.ok((await w.id.loginSecurity.updateSettings(owner, { sessionIdleMinutes: 10 }, w.rt.log)).ok);
  const login = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  if (!login.ok) throw new Error('login');
  w.clock.advance(11 * MINUTE);
  t.same(await w.id.sessions.resume(login.token), { ok: false, reason: 'expired' }, 'the account’s 10 minutes, not the default 120');
});

t.test('logout ends the session; a password change ends the user’s other sessions only', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user, password } = await w.user(account);
  const other = await w.user(account);
  const loggedIn = async (email: string, pw: string) => {
    const login = await w.id.logins.login({ email, password: pw, ...client }, w.rt.log);
    if (!login.ok) throw new Error(`login of ${email}`);
    return login;
  };
  const [a, b, c] = [await loggedIn(user.email, password), await loggedIn(user.email, password), await loggedIn(user.email, password)];
  const theirs = await loggedIn(other.user.email, other.password);
  await w.id.sessions.end(a.token);
  t.same(await w.id.sessions.resume(a.token), { ok: false, reason: 'unknown' }, 'logged out');
  t.ok((await w.id.sessions.resume(b.token)).ok, 'another session stays');
  const wrong = await w.id.users.changePassword(
    user,
    { currentPassword: 'not the password', newPassword: 'a brand new password', keepSessionId: b.session.id },
    w.rt.log,
  );
  t.same(wrong, { ok: false, refusal: { kind: 'incorrect_password', field: 'current_password' } });
  t.ok((await w.id.sessions.resume(c.token)).ok, 'a refused change ends nothing');
  const short = await w.id.users.changePassword(user, { currentPassword: password, newPassword: 'short', keepSessionId: b.session.id }, w.rt.log);
  t.match(short, { ok: false, refusal: { kind: 'invalid_field', field: 'new_password', message: /12 to 200 characters/ } });
  const changed = await w.id.users.changePassword(user, { currentPassword: password, newPassword: 'a brand new password', keepSessionId: b.session.id }, w.rt.log);
  t.ok(changed.ok);
  t.ok((await w.id.sessions.resume(b.token)).ok, 'the session that changed it stays');
  t.same(await w.id.sessions.resume(c.token), { ok: false, reason: 'unknown' }, 'the others end');
  t.ok((await w.id.sessions.resume(theirs.token)).ok, 'another user’s session stays');
  t.match(
    await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log),
    { refusal: { kind: 'invalid_credentials' } },
    'the old password no longer works',
  );
  t.ok((await w.id.logins.login({ email: user.email, password: 'a brand new password', ...client }, w.rt.log)).ok);
});

t.test('nonces: valid in the current and previous 12-hour tick, for their own session only', async (t) => {
  const w = await identityWorld(t);
  const account = await w.account();
  const { user, password } = await w.user(account);
  const one = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  const two = await w.id.logins.login({ email: user.email, password, ...client }, w.rt.log);
  if (!one.ok || !two.ok) throw new Error('logins');
  const nonce = w.id.nonces.nonceFor(one.session);
  t.equal(w.id.nonces.verifyNonce(one.session, nonce), 'valid');
  t.equal(w.id.nonces.verifyNonce(two.session, nonce), 'invalid', 'another session of the same user');
  t.equal(
    w.id.nonces.verifyNonce(
      one.session,
      nonce.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
    ),
    'invalid',
    'one character changed',
  );
  t.equal(w.id.nonces.verifyNonce(one.session, ''), 'invalid');
  t.equal(w.id.nonces.verifyNonce(one.session, nonce.toUpperCase() + 'x'), 'invalid');
  w.clock.advance(12 * HOUR);
  t.equal(w.id.nonces.verifyNonce(one.session, nonce), 'valid', 'the previous tick');
  t.not(w.id.nonces.nonceFor(one.session), nonce, 'a new tick, a new nonce');
  w.clock.advance(12 * HOUR);
  t.equal(w.id.nonces.verifyNonce(one.session, nonce), 'invalid', 'two ticks old');
  const other = await identityWorld(t);
  t.not(other.id.nonces.nonceFor(one.session), w.id.nonces.nonceFor(one.session), 'another data dir, another key');
});
