// Magic-link sign-in over real HTTP, with the MTA delivering Tern's own mail to a loopback sink: the account's
// switch (login settings' magic_link), the link mailed and used once (by REST and by the pages: a GET shows a
// button, the POST signs in), a second use and an expired link refused, the auth log's method; a disabled account,
// a two-step role, an unknown email and a throttled request all answered the same as a mailed one and mailing
// nothing; the hourly limit per email.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { PASSWORD, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { mailTo, countTo } from './helpers/system-mail.js';
import { storeSupport } from './helpers/store-support.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import type { AccountRole } from '../shared/domain/user.js';

const SYSTEM_MAIL = { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 20, dnsInstructionsPerDomainPerHour: 5 };
const w = await startMailWorld({ overrides: { systemMail: SYSTEM_MAIL } });
t.teardown(() => w.close());
const h = w.h;
const support = await storeSupport(t, h.dataDir);

const AUTH = '/api/tern-auth/v1';
const REQUESTED = 'If that address may sign in by a link, we have sent one to it. It works once, for a short time.';
const log = createLogger('test', 'silent');
let counter = 0;

async function user(role: AccountRole): Promise<{ id: number; email: string }> {
  const users = createIdentity(h.rt).users;
  const email = `link-${role}-${++counter}-${process.pid}@dest.test`;
  const made = await users.create(w.accountId, { email, role }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return { id: made.value.user.id, email };
}

const owner = await user('owner');
const loggedIn = await h.request('POST', `${AUTH}/login`, { body: { email: owner.email, password: PASSWORD } });
const ownerSession: SignedIn = {
  cookie: (loggedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
  nonce: String((loggedIn.body as { nonce?: string }).nonce ?? ''),
  reply: loggedIn,
};
const setSettings = (body: Record<string, unknown>) => h.request('POST', `${AUTH}/settings`, { body, ...withSession(ownerSession) });
const askLink = (email: string) => h.request('POST', `${AUTH}/login/magic-link`, { body: { email } });
const verify = (token: string) => h.request('POST', `${AUTH}/login/magic-link/verify`, { body: { token } });

/** The token of the `nth` link mailed to `email`. */
async function tokenFromMail(email: string, nth = 1): Promise<string> {
  const { parsed } = await mailTo(w.sink, email, nth);
  const token = /\/magic-link\?token=([A-Za-z0-9_-]{43})/.exec(parsed.text ?? '')?.[1];
  if (!token) throw new Error(`no link in: ${parsed.text}`);
  return token;
}

/** Waits until a link mailed after these requests has arrived, so that a mail the requests would have made would be there too. */
async function settled(): Promise<void> {
  const marker = await user('viewer');
  await askLink(marker.email);
  await tokenFromMail(marker.email);
}

t.beforeEach(async () => {
  t.equal((await setSettings({ magic_link: true, two_step_roles: [] })).status, 200);
});
t.afterEach(async () => {
  const keys = await h.rt.redis.keys('*magic-link:*');
  if (keys.length) await h.rt.redis.del(...keys);
});

t.test('the switch is off by default, and turned on by the account’s settings', async (t) => {
  t.match((await setSettings({ magic_link: false })).body, { magic_link: false });
  t.match((await h.request('GET', `${AUTH}/settings`, withSession(ownerSession))).body, { magic_link: false });
  t.match((await setSettings({ magic_link: true })).body, { magic_link: true });
  t.match((await setSettings({ magic_link: 'yes' })).body, { code: 'rest_invalid_param', data: { params: { magic_link: String } } });
});

t.test('a mailed link signs in once, with a session and an auth log entry of method magic_link; a second use is refused', async (t) => {
  const viewer = await user('admin');
  const asked = await askLink(viewer.email);
  t.equal(asked.status, 200, asked.text);
  t.same(asked.body, { requested: true, message: REQUESTED });
  const { parsed } = await mailTo(w.sink, viewer.email);
  t.equal(parsed.subject, 'Your Tern sign-in link');
  const token = await tokenFromMail(viewer.email);
  const signedIn = await verify(token);
  t.equal(signedIn.status, 200, signedIn.text);
  t.match(signedIn.body, { user: { email: viewer.email }, nonce: /^[0-9a-f]{10}$/ });
  const s = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!, nonce: String((signedIn.body as { nonce: string }).nonce), reply: signedIn };
  t.match(signedIn.headers.get('set-cookie'), /HttpOnly/, 'the password login’s cookie');
  t.equal((await h.request('GET', `${AUTH}/quick-stats`, withSession(s))).status, 200, 'the session works');
  const again = await verify(token);
  t.equal(again.status, 401);
  t.match(again.body, { code: 'tern_magic_link_invalid' }, 'a link signs in once');
  t.equal(again.headers.get('set-cookie'), null);
  const entries = (await h.rt.store.authLog.list(w.accountId, { page: 1, perPage: 50 })).rows.filter((e) => e.email === viewer.email);
  t.match(entries, [{ result: 'success', method: 'magic_link' }], 'one success, by magic link');
  const logs = await h.request('GET', `${AUTH}/auth-logs`, withSession(ownerSession));
  t.match(
    (logs.body as Array<{ email: string; method: string }>).find((e) => e.email === viewer.email),
    { method: 'magic_link' },
  );
});

t.test('on the pages, the mailed link shows a button (a GET signs nobody in) whose POST signs in once', async (t) => {
  const admin = await user('admin');
  const form = await fetch(`${h.url}/wp-login.php`);
  t.match(await form.text(), /id="send-magic-link"/, 'the sign-in page offers a link');
  const asked = await fetch(`${h.url}/magic-link`, { method: 'POST', body: new URLSearchParams({ email: admin.email }), headers: { origin: h.url } });
  t.equal(asked.status, 200);
  t.match(await asked.text(), 'If that address may sign in by a link, we have sent one to it.');
  const token = await tokenFromMail(admin.email);
  const page = await fetch(`${h.url}/magic-link?token=${token}`);
  t.equal(page.status, 200);
  t.equal(page.headers.get('set-cookie'), null, 'opening the link signs nobody in');
  t.match(await page.text(), new RegExp(`name="token" value="${token}"`));
  const post = () => fetch(`${h.url}/magic-link/sign-in`, { method: 'POST', body: new URLSearchParams({ token }), headers: { origin: h.url }, redirect: 'manual' });
  const first = await post();
  t.equal(first.status, 303);
  t.match(first.headers.get('set-cookie'), /^tern_session=/);
  const second = await post();
  t.equal(second.status, 401, 'the second POST is refused');
  t.match(await second.text(), /cannot be used/);
});

t.test('an expired link is refused', async (t) => {
  const viewer = await user('viewer');
  await askLink(viewer.email);
  const token = await tokenFromMail(viewer.email);
  await support.setMagicLinkExpiry(viewer.id, new Date(Date.now() - 1000).toISOString());
  t.match((await verify(token)).body, { code: 'tern_magic_link_invalid', data: { status: 401 } });
});

t.test('a disabled account, a two-step role and an unknown email get the same answer, and nothing is mailed', async (t) => {
  const off = await user('viewer');
  const twoStep = await user('admin');
  const unknown = `nobody-${process.pid}@dest.test`;
  const mailedBefore = await user('viewer');
  await askLink(mailedBefore.email);
  const stale = await tokenFromMail(mailedBefore.email);

  t.equal((await setSettings({ magic_link: false })).status, 200);
  const offAnswer = await askLink(off.email);
  t.same([offAnswer.status, offAnswer.body], [200, { requested: true, message: REQUESTED }], 'disabled: the same answer');
  t.match((await verify(stale)).body, { code: 'tern_magic_link_invalid' }, 'a link mailed before the switch went off no longer signs in');

  t.equal((await setSettings({ magic_link: true, two_step_roles: ['admin'] })).status, 200);
  t.same((await askLink(twoStep.email)).body, { requested: true, message: REQUESTED }, 'two-step role: the same answer');
  t.same((await askLink(unknown)).body, { requested: true, message: REQUESTED }, 'unknown: the same answer');
  await settled();
  t.equal(countTo(w.sink, off.email), 0, 'nothing mailed when the account has it off');
  t.equal(countTo(w.sink, twoStep.email), 0, 'nothing mailed to a two-step role');
  t.equal(countTo(w.sink, unknown), 0, 'nothing mailed to an unknown email');
});

t.test('requests are throttled per email before anything is done: the fourth in an hour is refused and mails nothing', async (t) => {
  const viewer = await user('viewer');
  for (let i = 1; i <= 3; i++) t.equal((await askLink(viewer.email)).status, 200, `request ${i}`);
  const refused = await askLink(viewer.email);
  t.equal(refused.status, 429);
  t.match(refused.body, { code: 'rest_too_many_requests', message: /3 sign-in links an hour for this email/ });
  t.ok(Number(refused.headers.get('retry-after')) > 0);
  const unknown = `throttled-${process.pid}@dest.test`;
  for (let i = 1; i <= 3; i++) await askLink(unknown);
  t.equal((await askLink(unknown)).status, 429, 'an unknown email is throttled alike');
  await tokenFromMail(viewer.email, 3);
  await settled();
  t.equal(countTo(w.sink, viewer.email), 3, 'three links, not four');
  const latest = await tokenFromMail(viewer.email, 3);
  const older = await tokenFromMail(viewer.email, 1);
  t.match((await verify(older)).body, { code: 'tern_magic_link_invalid' }, 'a newer link replaces the older ones');
  t.equal((await verify(latest)).status, 200);
});
