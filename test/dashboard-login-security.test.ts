// The authentication plugin's login security (issue 26) over real HTTP, with the MTA delivering Tern's own mail
// to a loopback sink: the settings (lockout mail, log retention, application passwords, two-step roles) as the
// login applies them; email two-step sign-in end to end (the code mailed, used once, a wrong code counted, an
// expired one refused, the lockout after the configured attempts); the auth log's filters and quick stats'
// ranges; what a user may delete of the log, and the owners' truncation recorded in the audit log.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { PASSWORD, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { mailTo, countTo } from './helpers/system-mail.js';
import { storeSupport } from './helpers/store-support.js';
import { startBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page } from './helpers/web-pages.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import type { AccountRole } from '../shared/domain/user.js';

const SYSTEM_MAIL = { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 20, dnsInstructionsPerDomainPerHour: 5 };
const w = await startMailWorld({ overrides: { systemMail: SYSTEM_MAIL } });
t.teardown(() => w.close());
const h = w.h;
const support = await storeSupport(t, h.dataDir);

const AUTH = '/api/tern-auth/v1';
const log = createLogger('test', 'silent');
let counter = 0;

/** A user of the world's account with PASSWORD set, at an address the sink receives. */
async function user(role: AccountRole, accountId = w.accountId): Promise<{ id: number; email: string }> {
  const users = createIdentity(h.rt).users;
  const email = `sec-${role}-${++counter}-${process.pid}@dest.test`;
  const made = await users.create(accountId, { email, role }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return { id: made.value.user.id, email };
}

const login = (email: string, password = PASSWORD) => h.request('POST', `${AUTH}/login`, { body: { email, password } });
const session = (reply: Awaited<ReturnType<typeof login>>): SignedIn => ({
  cookie: (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
  nonce: String((reply.body as { nonce?: string }).nonce ?? ''),
  reply,
});
const signIn = async (email: string): Promise<SignedIn> => {
  const reply = await login(email);
  if (reply.status !== 200) throw new Error(`sign-in of ${email}: ${reply.status} ${reply.text}`);
  return session(reply);
};

/** The one owner every test of this file changes the world account's settings as. */
const owner = await user('owner');
const ownerSession = await signIn(owner.email);
const settingsOf = () => h.request('GET', `${AUTH}/settings`, withSession(ownerSession));
const setSettings = (body: Record<string, unknown>, s: SignedIn = ownerSession) => h.request('POST', `${AUTH}/settings`, { body, ...withSession(s) });

/** The six digits of the `nth` sign-in code mailed to `email`. */
async function codeFromMail(email: string, nth = 1): Promise<string> {
  const { parsed } = await mailTo(w.sink, email, nth);
  const code = /sign-in code is (\d{6})/.exec(parsed.text ?? '')?.[1];
  if (!code) throw new Error(`no code in: ${parsed.text}`);
  return code;
}

const sendCode = (challenge: string, code: string) => h.request('POST', `${AUTH}/login/code`, { body: { challenge, code } });

t.afterEach(async () => {
  // Every test starts from the product's settings and with the loopback address's failures forgotten.
  await setSettings({ two_step_roles: [], application_passwords: true, notify_on_lockout: false, failures_per_email: 5, log_retention_days: 90 });
  const keys = await h.rt.redis.keys('*login:*');
  if (keys.length) await h.rt.redis.del(...keys);
});

t.test('the settings read the defaults, change within their bounds, and refuse bad input naming every field', async (t) => {
  const viewer = await signIn((await user('viewer')).email);
  const read = await settingsOf();
  t.equal(read.status, 200);
  t.match(read.body, { notify_on_lockout: false, log_retention_days: 90, application_passwords: true, two_step_roles: [] });
  const changed = await setSettings({ notify_on_lockout: true, log_retention_days: 30, two_step_roles: ['admin', 'viewer'] });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { notify_on_lockout: true, log_retention_days: 30, application_passwords: true, two_step_roles: ['admin', 'viewer'] });
  const bad = await setSettings({ log_retention_days: 0, two_step_roles: ['root'] });
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param', data: { status: 400, params: { two_step_roles: String } } });
  const outOfBounds = await setSettings({ log_retention_days: 4000 });
  t.match(outOfBounds.body, { code: 'rest_invalid_param', data: { params: { logRetentionDays: /1 to 3650/ } } });
  t.match((await settingsOf()).body, { log_retention_days: 30, two_step_roles: ['admin', 'viewer'] }, 'nothing changed');
  const audits = (await h.rt.store.auditLog.list({ action: 'login_settings.update', targetId: String(w.accountId) }, { page: 1, perPage: 5 })).rows;
  t.match(
    audits[0],
    {
      operatorEmail: `${owner.email} (owner of account ${w.accountId})`,
      before: { notifyOnLockout: false, logRetentionDays: 90 },
      after: { notifyOnLockout: true, logRetentionDays: 30, twoStepRoles: ['admin', 'viewer'] },
    },
    'the change is in the audit log with what it replaced',
  );
  t.equal(audits.filter((a) => a.after !== null && (a.after as { logRetentionDays?: number }).logRetentionDays === 4000).length, 0, 'a refused change is not');
  t.equal((await h.request('POST', `${AUTH}/settings`, { body: { log_retention_days: 10 } })).status, 401, 'anonymous');
  t.equal((await setSettings({ log_retention_days: 10 }, viewer)).status, 403, 'a viewer may not change them');
});

t.test('two-step sign-in: the password answers a challenge, the mailed code signs in once, a wrong one is counted, the settings decide who', async (t) => {
  const admin = await user('admin');
  const plainOwner = await user('owner');
  t.equal((await setSettings({ two_step_roles: ['admin'] })).status, 200);
  const first = await login(admin.email);
  t.equal(first.status, 401, 'not signed in by the password alone');
  t.match(first.body, { code: 'tern_two_step_required', data: { status: 401, challenge: /^[A-Za-z0-9_-]{43}$/, expires_at: String, sent_to: /^se…@dest\.test$/ } });
  t.equal(first.headers.get('set-cookie'), null, 'no cookie');
  const challenge = (first.body as { data: { challenge: string } }).data.challenge;
  const code = await codeFromMail(admin.email);
  const wrongCode = code === '000000' ? '000001' : '000000';
  const wrong = await sendCode(challenge, wrongCode);
  t.match(wrong.body, { code: 'tern_two_step_code_invalid', data: { status: 401, tries_left: 4 } });
  const signedIn = await sendCode(challenge, code);
  t.equal(signedIn.status, 200, signedIn.text);
  t.match(signedIn.body, { user: { email: admin.email, role: 'admin' }, nonce: /^[0-9a-f]{10}$/ });
  const s = session(signedIn);
  t.equal((await h.request('GET', `${AUTH}/quick-stats`, withSession(s))).status, 200, 'the session works');
  t.match((await sendCode(challenge, code)).body, { code: 'tern_two_step_expired' }, 'a code signs in once');
  t.match((await sendCode(challenge, 'abc')).body, { code: 'rest_invalid_param', data: { params: { code: String } } }, 'a code is six digits');

  t.equal((await login(plainOwner.email)).status, 200, 'an owner, not named by the settings, signs in with the password');
  t.equal((await setSettings({ two_step_roles: [] })).status, 200);
  t.equal((await login(admin.email)).status, 200, 'with no role named, the admin too');
  t.equal(countTo(w.sink, plainOwner.email), 0, 'no code was mailed to the owner');
});

t.test('an expired two-step code is refused, and wrong codes lock the email out as failed passwords do', async (t) => {
  const admin = await user('admin');
  t.equal((await setSettings({ two_step_roles: ['admin'], failures_per_email: 3 })).status, 200);
  const expiring = (await login(admin.email)).body as { data: { challenge: string } };
  const code = await codeFromMail(admin.email);
  await support.setTwoStepExpiry(admin.id, new Date(Date.now() - 1000).toISOString());
  t.match((await sendCode(expiring.data.challenge, code)).body, { code: 'tern_two_step_expired' }, 'an expired code is refused');

  await h.rt.redis.del(...(await h.rt.redis.keys('*login:fail:*')));
  const fresh = (await login(admin.email)).body as { data: { challenge: string } };
  const fresher = await codeFromMail(admin.email, 2);
  const wrongCode = fresher === '000000' ? '000001' : '000000';
  t.match((await sendCode(fresh.data.challenge, wrongCode)).body, { code: 'tern_two_step_code_invalid' }, 'the second failure (the password held the first place)');
  t.match((await sendCode(fresh.data.challenge, wrongCode)).body, { code: 'tern_two_step_code_invalid' }, 'the third');
  const locked = await sendCode(fresh.data.challenge, fresher);
  t.equal(locked.status, 429, 'the right code waits too once the email is locked out');
  t.ok(Number(locked.headers.get('retry-after')) > 0);
  t.equal((await login(admin.email)).status, 429, 'and so does the password');
});

t.test('with notify_on_lockout the owners are mailed once per lockout', async (t) => {
  const viewer = await user('viewer');
  t.equal((await setSettings({ notify_on_lockout: true, failures_per_email: 3 })).status, 200);
  const before = countTo(w.sink, owner.email);
  for (let i = 0; i < 3; i++) t.equal((await login(viewer.email, 'not the password')).status, 401);
  t.equal((await login(viewer.email)).status, 429);
  t.equal((await login(viewer.email)).status, 429);
  const { parsed } = await mailTo(w.sink, owner.email, before + 1);
  t.match(parsed.subject, new RegExp(`locked after failed attempts`));
  t.match(parsed.text, viewer.email);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(countTo(w.sink, owner.email), before + 1, 'one mail for the lockout, not one per refused attempt');
});

t.test('application passwords stop working when the account turns them off, and work again when it turns them on', async (t) => {
  const made = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { body: { name: 'ci' }, ...withSession(ownerSession) });
  t.equal(made.status, 201, made.text);
  const basic = { headers: { authorization: `Basic ${Buffer.from(`${owner.email}:${(made.body as { password: string }).password}`).toString('base64')}` } };
  t.equal((await h.request('GET', `${AUTH}/quick-stats`, basic)).status, 200);
  t.equal((await setSettings({ application_passwords: false })).status, 200);
  const refused = await h.request('GET', `${AUTH}/quick-stats`, basic);
  t.equal(refused.status, 401);
  t.match(refused.body, { code: 'application_passwords_disabled' });
  t.equal((await setSettings({ application_passwords: true })).status, 200);
  t.equal((await h.request('GET', `${AUTH}/quick-stats`, basic)).status, 200);
});

t.test('the auth log filters by result and searches emails and addresses; quick stats take a day range', async (t) => {
  const viewer = await user('viewer');
  await login(viewer.email, 'not the password');
  await login(viewer.email);
  const list = (query: string) => h.request('GET', `${AUTH}/auth-logs?${query}`, withSession(ownerSession));
  const failures = await list(`status=failure&search=${encodeURIComponent(viewer.email.toUpperCase())}`);
  t.equal(failures.status, 200);
  t.same(
    (failures.body as Array<{ result: string; email: string }>).map((e) => [e.result, e.email]),
    [['failure', viewer.email]],
  );
  t.equal(failures.headers.get('x-wp-total'), '1');
  t.equal((await list('search=127.0.0')).headers.get('x-wp-total'), String(Number((await list('')).headers.get('x-wp-total'))), 'every attempt came from loopback');
  t.match((await list('status=maybe')).body, { code: 'rest_invalid_param', data: { params: { status: String } } });
  const stats = await h.request('GET', `${AUTH}/quick-stats?day_range=${encodeURIComponent('-30 days')}`, withSession(ownerSession));
  t.equal(stats.status, 200);
  t.match(stats.body, {
    last_24h: { attempts: Number },
    last_7d: { attempts: Number },
    range: { day_range: '-30 days', attempts: Number, failures: Number, lockouts: Number },
  });
  t.match((await h.request('GET', `${AUTH}/quick-stats?day_range=all_time`, withSession(ownerSession))).body, { range: { day_range: 'all_time' } });
  const bad = await h.request('GET', `${AUTH}/quick-stats?day_range=yesterday`, withSession(ownerSession));
  t.match(bad.body, { code: 'rest_invalid_param', data: { status: 400, params: { day_range: String } } });
});

t.test('a user cannot delete their own failed attempts; only owners truncate the log, and that is in the audit log', async (t) => {
  const admin = await user('admin');
  await login(admin.email, 'not the password');
  const adminSession = await signIn(admin.email);
  const entries = (await h.request('GET', `${AUTH}/auth-logs?status=failure&search=${encodeURIComponent(admin.email)}`, withSession(adminSession))).body as Array<{
    id: number;
  }>;
  const ownFailure = entries[0]!.id;
  const kept = await h.request('POST', `${AUTH}/delete-log/${ownFailure}`, withSession(adminSession));
  t.equal(kept.status, 400);
  t.match(kept.body, { code: 'rest_invalid_param', data: { params: { id: /your own email/ } } });
  t.equal((await h.request('POST', `${AUTH}/delete-log/${ownFailure}`, withSession(ownerSession))).status, 200, 'another admin or owner may');
  t.equal((await h.request('POST', `${AUTH}/delete-log/${ownFailure}`, withSession(ownerSession))).status, 404, 'once');

  const other = await h.account();
  const stranger = await signIn((await user('owner', other.id)).email);
  t.equal((await h.request('POST', `${AUTH}/delete-log/${entries[0]!.id + 1}`, withSession(stranger))).status, 404, "another account's entry is not found");

  t.equal((await h.request('POST', `${AUTH}/truncate-auth-logs`, withSession(adminSession))).status, 403, 'an admin may not truncate');
  t.equal((await h.request('POST', `${AUTH}/truncate-auth-logs`)).status, 401, 'nor anyone anonymous');
  const truncated = await h.request('POST', `${AUTH}/truncate-auth-logs`, withSession(ownerSession));
  t.equal(truncated.status, 200);
  const removed = (truncated.body as { removed: number }).removed;
  t.ok(removed > 0);
  const [audit] = (await h.rt.store.auditLog.list({ action: 'auth_log.truncate', targetId: String(w.accountId) }, { page: 1, perPage: 1 })).rows;
  t.match(audit, { operatorEmail: `${owner.email} (owner of account ${w.accountId})`, before: { entries: removed }, after: { entries: 0 } });
});

t.test("the retention sweep deletes each account's entries older than its chosen days", async (t) => {
  const other = await h.account();
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const entry = (accountId: number, at: string) =>
    h.rt.store.authLog.record({ accountId, userId: null, email: 'old@dest.test', address: '192.0.2.4', userAgent: 'test', result: 'failure', at });
  t.equal((await setSettings({ log_retention_days: 10 })).status, 200);
  await entry(w.accountId, daysAgo(11));
  const recent = await entry(w.accountId, daysAgo(9));
  const otherOld = await entry(other.id, daysAgo(11));
  await entry(other.id, daysAgo(91));
  await createIdentity(h.rt).loginSecurity.sweepRetention(log);
  const ids = async (accountId: number) => (await h.rt.store.authLog.list(accountId, { page: 1, perPage: 100 }, { search: 'old@dest.test' })).rows.map((e) => e.id);
  t.same(await ids(w.accountId), [recent.id], 'past its 10 days, gone');
  t.same(await ids(other.id), [otherOld.id], 'an account with no setting keeps 90 days');
});

t.test('in Chromium: a two-step sign-in on the sign-in page, a wrong code said, the right one signing in, the page accessible', async (t) => {
  const admin = await user('admin');
  t.equal((await setSettings({ two_step_roles: ['admin'] })).status, 200);
  const browser = await startBrowser();
  t.teardown(() => browser.close());
  const p = await browser.context.newPage();
  await p.goto(`${h.url}/wp-login.php`);
  await p.fill('#email', admin.email);
  await p.fill('#password', PASSWORD);
  await p.click('#sign-in');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /mailed a six-digit sign-in code to se…@dest\.test/);
  t.same(await seriousViolations(p), [], 'the code form');
  const code = await codeFromMail(admin.email);
  await p.fill('#code', code === '000000' ? '000001' : '000000');
  await p.click('#send-code');
  t.match(await (await p.waitForSelector('p.error')).textContent(), /The sign-in code is not right/);
  await p.fill('#code', code);
  await Promise.all([p.waitForURL((url) => url.pathname === '/'), p.click('#send-code')]);
  t.equal(await p.textContent('h1'), 'Overview', 'signed in with the code');
});

t.test('sign-in redirects: paths of this site per role, applied by the login, the sign-in page and the logout; bad paths refused', async (t) => {
  const FORMS = `${AUTH}/auth-forms-settings`;
  t.match((await h.request('GET', FORMS, withSession(ownerSession))).body, { redirect_settings: { default_login_redirect: null, redirect_rules: [] } });
  const set = (settings: Record<string, unknown>, s: SignedIn = ownerSession) => h.request('POST', FORMS, { body: { redirect_settings: settings }, ...withSession(s) });
  const wanted = {
    default_login_redirect: '/domains',
    default_logout_redirect: null,
    redirect_rules: [{ role: 'viewer', login_redirect: '/logs?status=bounced', logout_redirect: '/forgot-password' }],
  };
  const saved = await set(wanted);
  t.equal(saved.status, 200, saved.text);
  t.same(saved.body, { redirect_settings: wanted });
  for (const bad of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', '/a/../b', 'domains']) {
    const refused = await set({ ...wanted, default_login_redirect: bad });
    t.equal(refused.status, 400, `${bad} is refused`);
    t.match(refused.body, { code: 'rest_invalid_param', data: { params: { default_login_redirect: /path of this site/ } } });
  }
  const twice = await set({ ...wanted, redirect_rules: [...wanted.redirect_rules, { role: 'viewer', login_redirect: null, logout_redirect: null }] });
  t.match(twice.body, { data: { params: { 'redirect_rules[1].role': /two rules/ } } });
  t.same((await h.request('GET', FORMS, withSession(ownerSession))).body, { redirect_settings: wanted }, 'nothing changed');
  const [audit, ...older] = (await h.rt.store.auditLog.list({ action: 'sign_in_redirects.update', targetId: String(w.accountId) }, { page: 1, perPage: 5 })).rows;
  t.match(audit, { after: { defaultLogin: '/domains', rules: [{ role: 'viewer', login: '/logs?status=bounced' }] } }, 'the change is in the audit log');
  t.equal(older.length, 0, 'one audit entry: the refused changes are not');
  t.equal((await h.request('GET', FORMS)).status, 401);

  const viewer = await user('viewer');
  const admin = await user('admin');
  t.equal((await set(wanted, await signIn(viewer.email))).status, 403, 'a viewer may not change them');
  t.match((await login(viewer.email)).body, { redirect_to: '/logs?status=bounced' }, "the viewer's rule");
  t.match((await login(admin.email)).body, { redirect_to: '/domains' }, 'the default for a role with no rule');
  const byPage = await page(h, 'POST', '/wp-login.php', { form: { email: viewer.email, password: PASSWORD } });
  t.equal(byPage.status, 303);
  t.equal(byPage.headers.get('location'), '/logs?status=bounced', 'the sign-in page lands there too');
  const asked = await page(h, 'POST', '/wp-login.php', { form: { email: viewer.email, password: PASSWORD, redirect_to: '/suppressions' } });
  t.equal(asked.headers.get('location'), '/suppressions', 'a redirect_to asked for wins');
  const cookie = (asked.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const out = await page(h, 'POST', '/logout', { cookie, form: await formGuardOf(h, cookie, '/') });
  t.equal(out.status, 303);
  t.equal(out.headers.get('location'), '/forgot-password', "signing out lands at the viewer's rule");
  await set({ default_login_redirect: null, default_logout_redirect: null, redirect_rules: [] });
  t.match((await login(viewer.email)).body, { redirect_to: null });
});
