// Signing in to the dashboard over real HTTP: login sets an HttpOnly session cookie and answers the nonce; the
// cookie counts only with its nonce (none: anonymous, wrong: rest_cookie_invalid_nonce); logout ends it;
// application passwords are created, used as HTTP Basic without a nonce, and refused once revoked; roles and
// teams bound what a user reaches.
import t from 'tap';
import type { UserRole } from '../shared/domain/user.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn as logInHarness, userOn as userOnHarness, withSession } from './helpers/dashboard-session.js';

let h: Harness;

t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const userOn = (accountId: number, role: UserRole, teamId?: number) => userOnHarness(h, accountId, role, teamId);
const logIn = (email: string, password?: string) => logInHarness(h, email, password);

t.test('a login sets an HttpOnly SameSite=Lax session cookie, a new one each time, and answers the user and the nonce', async (t) => {
  const account = await h.account();
  const email = await userOn(account.id, 'owner');
  const first = await logIn(email);
  t.equal(first.reply.status, 200, first.reply.text);
  const setCookie = first.reply.headers.get('set-cookie') ?? '';
  t.match(setCookie, /^tern_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/, 'HttpOnly, SameSite=Lax, not Secure over plain HTTP');
  t.match(first.reply.body, { user: { email, role: 'owner', team_id: account.id, must_change_password: false }, nonce: /^[0-9a-f]{10}$/ });
  t.equal(first.reply.headers.get('x-wp-nonce'), first.nonce, 'the nonce is also in X-WP-Nonce');
  const second = await logIn(email);
  t.not(second.cookie, first.cookie, 'every login makes a new session (no fixation)');
});

t.test('a wrong password and an unknown email get the same 401 answer', async (t) => {
  const account = await h.account();
  const email = await userOn(account.id, 'admin');
  const wrong = await logIn(email, 'not the password at all');
  const unknown = await logIn('nobody@example.com', 'not the password at all');
  t.equal(wrong.reply.status, 401);
  t.same(wrong.reply.body, unknown.reply.body, 'the same body');
  t.match(wrong.reply.body, { code: 'rest_invalid_credentials', data: { status: 401 } });
  t.equal(wrong.reply.headers.get('set-cookie'), null, 'no cookie');
});

t.test('repeated failures for one email are throttled with 429 and Retry-After', async (t) => {
  const account = await h.account();
  const email = await userOn(account.id, 'viewer');
  for (let i = 0; i < h.config.dashboard.login.failuresPerEmail; i++) await logIn(email, 'wrong password, again');
  const locked = await logIn(email);
  t.equal(locked.reply.status, 429, 'even the right password waits');
  t.match(locked.reply.body, { code: 'rest_too_many_requests' });
  t.ok(Number(locked.reply.headers.get('retry-after')) > 0, 'Retry-After says how long');
});

t.test('the session cookie counts only with its nonce: none is anonymous, a wrong one is refused, the right one passes', async (t) => {
  const account = await h.account();
  const s = await logIn(await userOn(account.id, 'owner'));
  const without = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(s, null));
  t.equal(without.status, 401, 'no nonce: the cookie is ignored');
  t.match(without.body, { code: 'rest_forbidden' });
  const wrong = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(s, '0123456789'));
  t.equal(wrong.status, 403);
  t.match(wrong.body, { code: 'rest_cookie_invalid_nonce', message: 'Cookie check failed' });
  const right = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(s));
  t.equal(right.status, 200, right.text);
  t.match(right.body, { last_24h: { attempts: Number, failures: Number, lockouts: Number }, last_7d: {} });
  t.match(right.headers.get('x-wp-nonce'), /^[0-9a-f]{10}$/, 'every answer carries a nonce');
  t.equal(right.headers.get('x-account-id'), String(account.id), 'and the team acted on');
  const query = await h.request('GET', `/api/tern-auth/v1/quick-stats?_wpnonce=${s.nonce}`, { headers: { cookie: s.cookie } });
  t.equal(query.status, 200, '_wpnonce in the query works as the header');
});

t.test('logout ends the session: the same cookie and nonce are anonymous afterwards', async (t) => {
  const account = await h.account();
  const s = await logIn(await userOn(account.id, 'admin'));
  const out = await h.request('POST', '/api/tern-auth/v1/logout', withSession(s));
  t.equal(out.status, 200, out.text);
  t.match(out.headers.get('set-cookie'), /^tern_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/, 'the cookie is cleared');
  const after = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(s));
  t.equal(after.status, 401, 'the old session no longer authenticates');
});

t.test('an application password is shown once, works as HTTP Basic without a nonce, and stops working when revoked', async (t) => {
  const account = await h.account();
  const email = await userOn(account.id, 'admin');
  const s = await logIn(email);
  const path = '/api/wp/v2/users/me/application-passwords';
  const created = await h.request('POST', path, { ...withSession(s), body: { name: 'Deploy bot', app_id: '0a0c7d0e-5f1b-4c2a-9d3e-1f2a3b4c5d6e' } });
  t.equal(created.status, 201, created.text);
  const item = created.body as { uuid: string; password: string };
  t.match(created.body, { name: 'Deploy bot', app_id: '0a0c7d0e-5f1b-4c2a-9d3e-1f2a3b4c5d6e', password: /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/, last_used: null });
  const basic = { authorization: `Basic ${Buffer.from(`${email}:${item.password}`).toString('base64')}` };
  const listed = await h.request('GET', path, { headers: basic });
  t.equal(listed.status, 200, listed.text);
  t.equal(listed.headers.get('x-wp-nonce'), null, 'no nonce for an application password');
  const [only] = listed.body as Array<Record<string, unknown>>;
  t.equal(only?.uuid, item.uuid);
  t.notOk('password' in (only ?? {}), 'the list never shows a password');
  t.match(only, { last_used: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/, last_ip: /./ }, 'its use is recorded');
  const noSpaces = { authorization: `Basic ${Buffer.from(`${email}:${item.password.replace(/ /g, '')}`).toString('base64')}` };
  t.equal((await h.request('GET', path, { headers: noSpaces })).status, 200, 'spaces are ignored');
  const revoked = await h.request('DELETE', `${path}/${item.uuid}`, withSession(s));
  t.equal(revoked.status, 200, revoked.text);
  t.match(revoked.body, { deleted: true, previous: { uuid: item.uuid } });
  const refused = await h.request('GET', path, { headers: basic });
  t.equal(refused.status, 401);
  t.match(refused.body, { code: 'incorrect_password', message: 'The provided password is an invalid application password.' });
});

t.test('a viewer may read but not change; a team user reaches only its team; another account’s team is not found', async (t) => {
  const account = await h.account();
  const other = await h.account();
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamId = (team.body as { data: { id: number } }).data.id;
  const viewer = await logIn(await userOn(account.id, 'viewer'));
  t.equal((await h.request('GET', '/api/tern-auth/v1/settings', withSession(viewer))).status, 403, 'login security is for owners and admins');
  const write = await h.request('POST', '/api/tern-auth/v1/settings', { ...withSession(viewer), body: { failures_per_email: 8 } });
  t.equal(write.status, 403);
  t.match(write.body, { code: 'rest_forbidden', data: { status: 403 } });
  const owner = await logIn(await userOn(account.id, 'owner'));
  const onTeam = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(owner, owner.nonce, { 'X-Account-Id': String(teamId) }));
  t.equal(onTeam.headers.get('x-account-id'), String(teamId), 'an account user acts on its child team with X-Account-Id');
  const elsewhere = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(owner, owner.nonce, { 'X-Account-Id': String(other.id) }));
  t.equal(elsewhere.status, 404, 'another account’s team answers as a missing one');
  t.match(elsewhere.body, { code: 'rest_team_invalid_id' });
  const teamUser = await logIn(await userOn(account.id, 'admin', teamId));
  const up = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(teamUser, teamUser.nonce, { 'X-Account-Id': String(account.id) }));
  t.equal(up.status, 404, 'a team user cannot reach its account');
  const bad = await h.request('GET', '/api/tern-auth/v1/quick-stats', withSession(owner, owner.nonce, { 'X-Account-Id': 'abc' }));
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param' });
});

t.test('an owner changes the login settings within their bounds, and reads the auth log with WordPress paging', async (t) => {
  const account = await h.account();
  const email = await userOn(account.id, 'owner');
  await logIn(email, 'a wrong password here');
  const s = await logIn(email);
  const changed = await h.request('POST', '/api/tern-auth/v1/settings', { ...withSession(s), body: { failures_per_email: 8, session_idle_minutes: 60 } });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { failures_per_email: 8, session_idle_minutes: 60 });
  const out = await h.request('POST', '/api/tern-auth/v1/settings', { ...withSession(s), body: { failures_per_email: 0 } });
  t.equal(out.status, 400, 'a setting out of bounds is refused');
  const kept = await h.request('GET', '/api/tern-auth/v1/settings', withSession(s));
  t.match(kept.body, { failures_per_email: 8 }, 'and nothing changed');
  const logs = await h.request('GET', '/api/tern-auth/v1/auth-logs?per_page=1', withSession(s));
  t.equal(logs.status, 200, logs.text);
  t.equal(logs.headers.get('x-wp-total'), '2', 'both attempts are logged');
  t.equal(logs.headers.get('x-wp-totalpages'), '2');
  t.match(logs.headers.get('link'), /rel="next"/);
  t.match(logs.body, [{ email, result: 'success' }], 'newest first');
});

t.test('the index lists the authentication and application-password routes', async (t) => {
  const index = await h.request('GET', '/api/');
  const body = index.body as { namespaces: string[]; routes: Record<string, unknown> };
  t.ok(body.namespaces.includes('tern-auth/v1') && body.namespaces.includes('wp/v2'));
  for (const path of [
    '/tern-auth/v1/login',
    '/tern-auth/v1/logout',
    '/tern-auth/v1/settings',
    '/wp/v2/users/me/application-passwords',
    '/wp/v2/users/me/application-passwords/{uuid}',
  ]) {
    t.ok(path in body.routes, `${path} is listed`);
  }
});
