// The signed-in user's profile over real HTTP: GET/POST /api/tern/v2/profile (the name freely, the email with
// the current password), POST /profile/update-password (the other sessions end, the calling one stays), and
// the forced change at the first login: until the one-time password is replaced, a session reaches nothing else.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import { productDashboard } from '../api/http/dashboard/index.js';
import { routePath } from '../api/http/dashboard/route.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, PASSWORD, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const PROFILE = '/api/tern/v2/profile';
const UPDATE_PASSWORD = '/api/tern/v2/profile/update-password';
const DOMAINS = '/api/tern/v2/api/domains';
const NEW_PASSWORD = 'a brand new passphrase';
const log = createLogger('test', 'silent');

const profileOf = async (s: SignedIn) => (await h.request('GET', PROFILE, withSession(s))).body as Record<string, unknown>;

const basic = (email: string, password: string) => ({ headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` } });

/** A user made as `ternmail user create` makes one: with a one-time password that must be changed. */
async function freshUser(accountId: number): Promise<{ email: string; oneTimePassword: string }> {
  const email = `fresh-${randomUUID()}@example.com`;
  const made = await createIdentity(h.rt).users.create(accountId, { email, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  return { email, oneTimePassword: made.value.oneTimePassword };
}

t.test('GET /profile shows the signed-in user: id, email, name, role, team and account, the must-change flag, creation time', async (t) => {
  const account = await h.account();
  const own = await logIn(h, await userOn(h, account.id, 'admin'));
  const me = await h.request('GET', PROFILE, withSession(own));
  t.equal(me.status, 200, me.text);
  t.match(me.body, {
    id: Number,
    email: String,
    name: '',
    role: 'admin',
    team_id: account.id,
    account_id: account.id,
    must_change_password: false,
    created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/,
  });
  const team = await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(own), body: { name: 'Profile team' } });
  const teamId = (team.body as { id: number }).id;
  const teamUser = await logIn(h, await userOn(h, account.id, 'viewer', teamId));
  t.match(await profileOf(teamUser), { role: 'viewer', team_id: teamId, account_id: account.id }, 'a team user: its team and the account above it');
});

t.test('the profile needs a signed-in caller: anonymous and cookie without nonce 401, a wrong nonce 403, another account 404', async (t) => {
  const account = await h.account();
  const s = await logIn(h, await userOn(h, account.id, 'owner'));
  const anonymous = await h.request('GET', PROFILE);
  t.equal(anonymous.status, 401);
  t.match(anonymous.body, { code: 'rest_forbidden' });
  t.equal((await h.request('POST', PROFILE, { ...withSession(s, null), body: { name: 'x' } })).status, 401, 'a cookie without nonce is nobody');
  const wrong = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s, '0123456789'), body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
  t.equal(wrong.status, 403);
  t.match(wrong.body, { code: 'rest_cookie_invalid_nonce' });
  const other = await h.account();
  const elsewhere = await h.request('GET', PROFILE, withSession(s, s.nonce, { 'X-Account-Id': String(other.id) }));
  t.equal(elsewhere.status, 404, 'another account’s id is a missing team');
  t.equal((await logIn(h, (await profileOf(s)).email as string)).reply.status, 200, 'nothing changed: the password still logs in');
});

t.test('any role changes its own name; a bad name is refused and changes nothing', async (t) => {
  const account = await h.account();
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  const named = await h.request('POST', PROFILE, { ...withSession(viewer), body: { name: 'Vera Viewer' } });
  t.equal(named.status, 200, named.text);
  t.match(named.body, { name: 'Vera Viewer', role: 'viewer' });
  t.match(await profileOf(viewer), { name: 'Vera Viewer' }, 'kept');
  const bad = await h.request('POST', PROFILE, { ...withSession(viewer), body: { name: 'two\nlines' } });
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param', data: { params: { name: /one line/ } } });
  t.match(await profileOf(viewer), { name: 'Vera Viewer' }, 'unchanged');
});

t.test('an email change needs the current password: missing or wrong is refused and changes nothing, a taken email too', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'admin');
  const taken = await userOn(h, account.id, 'viewer');
  const s = await logIn(h, email);
  const newEmail = `moved-${randomUUID()}@example.com`;

  const missing = await h.request('POST', PROFILE, { ...withSession(s), body: { email: newEmail, name: 'Not Saved' } });
  t.equal(missing.status, 400, missing.text);
  t.match(missing.body, { code: 'rest_missing_callback_param', data: { params: ['current_password'] } });
  const wrong = await h.request('POST', PROFILE, { ...withSession(s), body: { email: newEmail, current_password: 'not my password' } });
  t.equal(wrong.status, 400);
  t.match(wrong.body, { code: 'rest_incorrect_password', message: 'The current password is incorrect.', data: { params: { current_password: String } } });
  const clash = await h.request('POST', PROFILE, { ...withSession(s), body: { email: taken.toUpperCase(), current_password: PASSWORD } });
  t.equal(clash.status, 400);
  t.match(clash.body, { code: 'existing_user_email', data: { params: { email: String } } });
  const invalid = await h.request('POST', PROFILE, { ...withSession(s), body: { email: 'not-an-email', current_password: PASSWORD } });
  t.match(invalid.body, { code: 'rest_invalid_param', data: { params: { email: String } } });
  t.match(await profileOf(s), { email, name: '' }, 'nothing changed, not even the name sent along');

  const moved = await h.request('POST', PROFILE, { ...withSession(s), body: { email: newEmail, current_password: PASSWORD } });
  t.equal(moved.status, 200, moved.text);
  t.match(moved.body, { email: newEmail });
  t.equal((await logIn(h, newEmail)).reply.status, 200, 'the new email logs in');
  t.equal((await logIn(h, email)).reply.status, 401, 'the old one no longer does');
  const same = await h.request('POST', PROFILE, { ...withSession(s), body: { email: newEmail, name: 'Same Email' } });
  t.equal(same.status, 200, 'sending the current email again needs no password');
});

t.test('update-password: the current password and the password rule are checked, nothing changes on a refusal', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'viewer');
  const s = await logIn(h, email);
  const wrong = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s), body: { current_password: 'not my password', new_password: NEW_PASSWORD } });
  t.equal(wrong.status, 400);
  t.match(wrong.body, { code: 'rest_incorrect_password' });
  const weak = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s), body: { current_password: PASSWORD, new_password: 'short' } });
  t.equal(weak.status, 400);
  t.match(weak.body, { code: 'rest_invalid_param', data: { params: { new_password: /12 to 200 characters/ } } });
  const same = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s), body: { current_password: PASSWORD, new_password: PASSWORD } });
  t.equal(same.status, 400);
  t.match(same.body, { code: 'rest_invalid_param', data: { params: { new_password: /differ/ } } });
  const missing = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s), body: { new_password: NEW_PASSWORD } });
  t.match(missing.body, { code: 'rest_missing_callback_param', data: { params: ['current_password'] } });
  t.equal((await logIn(h, email)).reply.status, 200, 'the password is unchanged');
});

t.test('update-password replaces the password and ends every other session; the calling one and application passwords stay', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'admin');
  const caller = await logIn(h, email);
  const other = await logIn(h, email);
  const app = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { ...withSession(caller), body: { name: 'CI' } });
  const appPassword = (app.body as { password: string }).password;

  const changed = await h.request('POST', UPDATE_PASSWORD, { ...withSession(caller), body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { email, must_change_password: false });
  t.equal((await logIn(h, email)).reply.status, 401, 'the old password is refused');
  t.equal((await logIn(h, email, NEW_PASSWORD)).reply.status, 200, 'the new one logs in');
  t.equal((await h.request('GET', PROFILE, withSession(other))).status, 401, 'the other session ended');
  const still = await h.request('GET', PROFILE, withSession(caller));
  t.equal(still.status, 200, 'the calling session, with its nonce, still works');
  t.equal((await h.request('GET', PROFILE, basic(email, appPassword))).status, 200, 'application passwords are kept, as WordPress keeps them');
});

/** Every endpoint the dashboard serves that needs a signed-in caller, with its path's variables filled in. */
function signedInEndpoints(): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  for (const route of productDashboard().routes) {
    let path = `/api${routePath(route)}`;
    for (const [name, pattern] of Object.entries(route.vars ?? {})) {
      const sample = ['1', 'abc', randomUUID()].find((v) => new RegExp(`^(?:${pattern})$`).test(v));
      path = path.replace(`{${name}}`, sample ?? 'x');
    }
    for (const e of route.endpoints) {
      if (e.permission === 'public') continue;
      for (const method of e.methods) out.push({ method, path });
    }
  }
  return out;
}

const ALLOWED_DURING_CHANGE = new Set([`GET ${PROFILE}`, `POST ${UPDATE_PASSWORD}`, 'POST /api/tern-auth/v1/logout']);

t.test('until a one-time password is changed, a session reaches only the profile, the change and logout; then everything', async (t) => {
  const account = await h.account();
  const fresh = await freshUser(account.id);
  const s = await logIn(h, fresh.email, fresh.oneTimePassword);
  t.equal(s.reply.status, 200, s.reply.text);
  t.match(s.reply.body, { user: { email: fresh.email, must_change_password: true } }, 'the login answer says the password must change');

  const gated = signedInEndpoints().filter((e) => !ALLOWED_DURING_CHANGE.has(`${e.method} ${e.path}`));
  t.ok(gated.some((e) => e.path === DOMAINS) && gated.length > 20, `every other signed-in endpoint is walked (${gated.length})`);
  for (const e of gated) {
    const reply = await h.request(e.method, e.path, { ...withSession(s), body: e.method === 'GET' || e.method === 'DELETE' ? undefined : {} });
    t.equal(reply.status, 403, `${e.method} ${e.path}: ${reply.text}`);
    t.match(reply.body, { code: 'tern_password_change_required', message: /change your password/i, data: { status: 403 } });
  }
  t.equal((await h.request('GET', '/api')).status, 200, 'the REST index stays public');
  t.match(await profileOf(s), { must_change_password: true }, 'the profile can be read');

  const changed = await h.request('POST', UPDATE_PASSWORD, { ...withSession(s), body: { current_password: fresh.oneTimePassword, new_password: NEW_PASSWORD } });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { must_change_password: false });
  t.equal((await h.request('GET', DOMAINS, withSession(s))).status, 200, 'the same session now reaches the mailer routes');
  const app = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { ...withSession(s), body: { name: 'After the change' } });
  t.equal(app.status, 201, 'and makes application passwords');
  const out = await h.request('POST', '/api/tern-auth/v1/logout', withSession(s));
  t.equal(out.status, 200);
});

t.test('a forced user may log out; a reset flags the user again and no application password can be made until the change', async (t) => {
  const account = await h.account();
  const fresh = await freshUser(account.id);
  const s = await logIn(h, fresh.email, fresh.oneTimePassword);
  t.equal((await h.request('POST', '/api/tern-auth/v1/logout', withSession(s))).status, 200, 'logout is allowed');

  const email = await userOn(h, account.id, 'admin');
  const before = await logIn(h, email);
  const app = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { ...withSession(before), body: { name: 'Kept' } });
  const appPassword = (app.body as { password: string }).password;
  const reset = await createIdentity(h.rt).users.resetPassword(email, log);
  if (!reset.ok) throw new Error(JSON.stringify(reset.refusal));
  const again = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { ...basic(email, appPassword), body: { name: 'Another' } });
  t.equal(again.status, 403, again.text);
  t.match(again.body, { code: 'tern_password_change_required' }, 'the core refuses it, whoever asks');
  t.equal((await h.request('GET', DOMAINS, basic(email, appPassword))).status, 200, 'an application password made before keeps working');
});
