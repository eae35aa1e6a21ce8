// Forgot password (issue 13) over real HTTP, with the MTA delivering Tern's own mail to a loopback sink: the same
// answer for a known and an unknown email, the mailed link's page setting a new password (the old one refused,
// the new one signing in, every session ended), the link working once (two uses at once: one wins), replaced by a
// newer request, refused once expired; a short or mistyped password refused with the form saying why and nothing
// changed; forms from another site refused; the limits per email and per address; where links lead (never to a
// Host the request made up); the REST twin; and the whole flow in Chromium from the sign-in page's link.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { startHarness } from './helpers/harness.js';
import { logIn, PASSWORD, withSession } from './helpers/dashboard-session.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { storeSupport } from './helpers/store-support.js';
import { page, type PageReply } from './helpers/web-pages.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { pause } from './helpers/wait.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import { redisKeys } from '../shared/redis-keys.js';

const SYSTEM_MAIL = { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 };
const LIMITS = { ttlS: 3600, perEmailPerHour: 3, perAddressPerHour: 10 };
const w = await startMailWorld({ overrides: { systemMail: SYSTEM_MAIL, dashboard: { passwordReset: LIMITS } } });
t.teardown(() => w.close());
const h = w.h;
const support = await storeSupport(t, h.dataDir);

const LOST = '/api/tern-auth/v1/lost-password';
const RESET = '/api/tern-auth/v1/reset-password';
const NEW_PASSWORD = 'a brand new password of mine';
const log = createLogger('test', 'silent');
let counter = 0;

/** A user of the world's account with PASSWORD set, at an address the sink receives. */
async function user(): Promise<{ id: number; email: string }> {
  const users = createIdentity(h.rt).users;
  const email = `reset-${++counter}-${process.pid}@dest.test`;
  const made = await users.create(w.accountId, { email, role: 'admin' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return { id: made.value.user.id, email };
}

const unknownEmail = () => `nobody-${++counter}-${process.pid}@dest.test`;

/** Every test starts with the loopback address's window empty: all of this file's requests come from it. */
t.beforeEach(async () => {
  const keys = await h.rt.redis.keys(redisKeys.passwordResets('address', '*'));
  if (keys.length > 0) await h.rt.redis.del(...keys);
});

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({ form: fields, headers: { origin: h.url, ...headers } });

/** Asks for a link through the page's form. */
const askByPage = (email: string, headers: Record<string, string> = {}): Promise<PageReply> => page(h, 'POST', '/forgot-password', form({ email }, headers));

/** The token of the link in the `nth` reset mail delivered to `email`, after checking the link leads to the dashboard. */
async function tokenFromMail(email: string, nth = 1, base = h.url): Promise<string> {
  const { parsed } = await mailTo(w.sink, email, nth);
  const link = /(https?:\/\/\S+)\/reset-password\?token=([A-Za-z0-9_-]{43})\b/.exec(parsed.text ?? '');
  if (!link) throw new Error(`no link in: ${parsed.text}`);
  if (link[1] !== base) throw new Error(`link not on the dashboard: ${link[0]}`);
  return link[2]!;
}

const setByPage = (token: string, password: string, again = password, headers: Record<string, string> = {}) =>
  page(h, 'POST', '/reset-password', form({ token, password, password_again: again }, headers));

t.test('asking for a known and an unknown email answers the same, by the page and by the route; only the known one is mailed', async (t) => {
  const known = await user();
  const unknown = unknownEmail();
  const [pageKnown, pageUnknown] = [await askByPage(known.email), await askByPage(unknown)];
  t.equal(pageKnown.status, 200);
  t.equal(pageUnknown.status, pageKnown.status);
  t.equal(pageUnknown.text, pageKnown.text, 'the very same page');
  t.match(pageKnown.text, /If an account exists for that address, we have sent a link/);
  const [restKnown, restUnknown] = [await h.request('POST', LOST, { body: { email: known.email } }), await h.request('POST', LOST, { body: { email: unknown } })];
  t.equal(restKnown.status, 200);
  t.same(restUnknown.body, restKnown.body, 'the very same answer');
  t.match(restKnown.body, { requested: true, message: /If an account exists/ });

  const { parsed } = await mailTo(w.sink, known.email);
  t.equal(parsed.from?.value[0]?.address, 'tern@example.com');
  t.equal(parsed.subject, 'Reset your Tern password');
  t.match(parsed.text, /from the address 127\.0\.0\.1/);
  t.match(String(parsed.html), new RegExp(`<a href="${h.url.replace(/[.]/g, '\\.')}/reset-password\\?token=[A-Za-z0-9_-]{43}">`));
  await mailTo(w.sink, known.email, 2);
  await pause(300);
  t.equal(countTo(w.sink, unknown), 0, 'nothing is mailed to an address that is no user');
  t.match(
    await h.request('POST', LOST, { body: { email: 'not an email' } }),
    { status: 400, body: { code: 'rest_invalid_param' } },
    'a malformed email is refused as such',
  );
});

t.test("the link's page sets a new password: the old one is refused, the new one signs in, every session has ended", async (t) => {
  const u = await user();
  const before = await logIn(h, u.email);
  t.equal((await h.request('GET', '/api/tern/v2/profile', withSession(before))).status, 200, 'a session before the reset');
  await askByPage(u.email);
  const token = await tokenFromMail(u.email);

  const shown = await page(h, 'GET', `/reset-password?token=${token}`);
  t.equal(shown.status, 200);
  t.match(shown.text, new RegExp(`name="token" value="${token}"`));
  t.match(shown.text, /autocomplete="new-password"/);
  t.match(shown.text, u.email, 'the page says whose password it sets');
  t.equal(shown.headers.get('referrer-policy'), 'same-origin', 'the token in the URL never leaves the site as a referrer');

  const set = await setByPage(token, NEW_PASSWORD);
  t.equal(set.status, 200);
  t.match(set.text, /Your password has been changed/);
  t.match(set.text, /<a href="\/wp-login\.php">Sign in<\/a>/);
  t.notOk(set.headers.get('set-cookie'), 'the page does not sign the user in');

  t.equal((await h.request('GET', '/api/tern/v2/profile', withSession(before))).status, 401, 'the earlier session has ended');
  t.equal((await logIn(h, u.email, PASSWORD)).reply.status, 401, 'the old password is refused');
  const after = await logIn(h, u.email, NEW_PASSWORD);
  t.equal(after.reply.status, 200, 'the new password signs in');
  t.match(after.reply.body, { user: { must_change_password: false } });
});

t.test('a link works once: used again it is refused by the page and the route; of two uses at once, one wins', async (t) => {
  const u = await user();
  await h.request('POST', LOST, { body: { email: u.email } });
  const token = await tokenFromMail(u.email);
  const used = await h.request('POST', RESET, { body: { token, password: NEW_PASSWORD } });
  t.match(used, { status: 200, body: { reset: true, user: { id: u.id, email: u.email, must_change_password: false } } });
  t.match(await h.request('POST', RESET, { body: { token, password: 'yet another password' } }), { status: 400, body: { code: 'invalid_key' } });
  const page2 = await page(h, 'GET', `/reset-password?token=${token}`);
  t.equal(page2.status, 400);
  t.match(page2.text, /invalid/);
  t.match(page2.text, /<a href="\/forgot-password">Ask for a new link<\/a>/);
  t.equal((await setByPage(token, 'yet another password')).status, 400, 'the form refuses it too');
  t.equal((await logIn(h, u.email, NEW_PASSWORD)).reply.status, 200, 'the password set by the first use stands');

  const racer = await user();
  await h.request('POST', LOST, { body: { email: racer.email } });
  const raceToken = await tokenFromMail(racer.email);
  const passwords = ['first racing password', 'second racing password'];
  const replies = await Promise.all(passwords.map((password) => h.request('POST', RESET, { body: { token: raceToken, password } })));
  t.same(replies.map((r) => r.status).sort(), [200, 400]);
  t.match(replies.find((r) => r.status === 400)?.body, { code: 'invalid_key' });
  const winner = passwords[replies.findIndex((r) => r.status === 200)]!;
  t.equal((await logIn(h, racer.email, winner)).reply.status, 200, "the winner's password is the one set");
});

t.test('a newer request replaces the earlier link', async (t) => {
  const u = await user();
  await askByPage(u.email);
  const first = await tokenFromMail(u.email, 1);
  await askByPage(u.email);
  const second = await tokenFromMail(u.email, 2);
  t.not(first, second);
  t.match(await h.request('POST', RESET, { body: { token: first, password: NEW_PASSWORD } }), { status: 400, body: { code: 'invalid_key' } });
  t.equal((await setByPage(second, NEW_PASSWORD)).status, 200, 'the newer link works');
});

t.test('an expired link is refused, by the page and by the route, and changes nothing', async (t) => {
  const u = await user();
  await askByPage(u.email);
  const token = await tokenFromMail(u.email);
  await support.setPasswordResetExpiry(u.id, new Date(Date.now() - 1000).toISOString());
  const shown = await page(h, 'GET', `/reset-password?token=${token}`);
  t.equal(shown.status, 400);
  t.match(shown.text, /expired/);
  t.match(await setByPage(token, NEW_PASSWORD), { status: 400, text: /expired/ });
  t.match(await h.request('POST', RESET, { body: { token, password: NEW_PASSWORD } }), { status: 400, body: { code: 'expired_key' } });
  t.equal((await logIn(h, u.email, PASSWORD)).reply.status, 200, 'the password is unchanged');
  t.match(await h.request('POST', RESET, { body: { token: 'x'.repeat(43), password: NEW_PASSWORD } }), { status: 400, body: { code: 'invalid_key' } });
  t.equal((await page(h, 'GET', '/reset-password')).status, 400, 'a page without a token says the link is invalid');
});

t.test('a short password, or two that differ, is refused with the form saying why; nothing changes and the link still works', async (t) => {
  const u = await user();
  const session = await logIn(h, u.email);
  await askByPage(u.email);
  const token = await tokenFromMail(u.email);

  const short = await setByPage(token, 'too short');
  t.equal(short.status, 400);
  t.match(short.text, /password must have 12 to 200 characters/);
  t.match(short.text, /<form method="post" action="\/reset-password">/, 'the form is shown again');
  t.match(short.text, new RegExp(`name="token" value="${token}"`));
  const differ = await setByPage(token, NEW_PASSWORD, `${NEW_PASSWORD}!`);
  t.equal(differ.status, 400);
  t.match(differ.text, /The two passwords differ/);
  t.match(await h.request('POST', RESET, { body: { token, password: 'short' } }), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { password: /12 to 200/ } } },
  });

  t.equal((await logIn(h, u.email, PASSWORD)).reply.status, 200, 'the old password still signs in');
  t.equal((await h.request('GET', '/api/tern/v2/profile', withSession(session))).status, 200, 'the session goes on');
  t.equal((await setByPage(token, NEW_PASSWORD)).status, 200, 'the link still works');
});

t.test('forms posted from another site are refused: no mail is sent, no password is set', async (t) => {
  const u = await user();
  const evil = { origin: 'https://evil.example' };
  const asked = await askByPage(u.email, evil);
  t.equal(asked.status, 403);
  t.match(asked.text, /sent from another site/);
  await h.request('POST', LOST, { body: { email: u.email } });
  const token = await tokenFromMail(u.email, 1);
  await pause(300);
  t.equal(countTo(w.sink, u.email), 1, 'only the same-site request was mailed');
  const set = await setByPage(token, NEW_PASSWORD, NEW_PASSWORD, evil);
  t.equal(set.status, 403);
  t.equal((await logIn(h, u.email, PASSWORD)).reply.status, 200, 'the password is unchanged');
  t.equal((await setByPage(token, NEW_PASSWORD)).status, 200, 'and the link still works from the site');
});

t.test('requests are limited per email, known or not, with the same answer, and per client address', async (t) => {
  const known = await user();
  const unknown = unknownEmail();
  for (const email of [known.email, unknown]) {
    for (let i = 1; i <= LIMITS.perEmailPerHour; i++) t.equal((await h.request('POST', LOST, { body: { email } })).status, 200);
  }
  const [overKnown, overUnknown] = [await h.request('POST', LOST, { body: { email: known.email } }), await h.request('POST', LOST, { body: { email: unknown } })];
  t.match(overKnown, { status: 429, body: { code: 'rest_too_many_requests', message: /At most 3 password reset requests an hour for this email address/ } });
  t.same(overUnknown.body, overKnown.body, 'the same refusal for an unknown email');
  t.ok(Number(overKnown.headers.get('retry-after')) > 0, 'with Retry-After');
  const overPage = await askByPage(known.email);
  t.equal(overPage.status, 429);
  t.match(overPage.text, /At most 3 password reset requests/);
  await mailTo(w.sink, known.email, LIMITS.perEmailPerHour);

  // The address's window (10): the 9 requests above were counted (each passed it), a tenth passes, the next is refused.
  t.equal((await h.request('POST', LOST, { body: { email: unknownEmail() } })).status, 200);
  const refused = await h.request('POST', LOST, { body: { email: unknownEmail() } });
  t.match(refused, { status: 429, body: { message: /At most 10 password reset requests an hour from your address/ } });
});

t.test('links lead to dashboard.publicUrl; without it a request to any host but a loopback one is refused, whatever the email', async (t) => {
  const u = await user();
  for (const email of [u.email, unknownEmail()]) {
    const reply = await h.raw('POST', LOST, { headers: { host: 'evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    t.match(reply, { status: 503, body: { code: 'rest_system_mail_unavailable', message: /dashboard\.publicUrl/ } });
  }
  await pause(300);
  t.equal(countTo(w.sink, u.email), 0, 'no link to the made-up host was mailed');

  const behindProxy = await startMailWorld({
    overrides: { systemMail: SYSTEM_MAIL, dashboard: { publicUrl: 'https://dashboard.example.net', passwordReset: LIMITS } },
  });
  t.teardown(() => behindProxy.close());
  const users = createIdentity(behindProxy.h.rt).users;
  const email = `proxied-${process.pid}@dest.test`;
  t.ok((await users.create(behindProxy.accountId, { email, role: 'viewer' }, log)).ok);
  const reply = await behindProxy.h.raw('POST', LOST, { headers: { host: 'evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  t.equal(reply.status, 200);
  const { parsed } = await mailTo(behindProxy.sink, email);
  t.match(parsed.text, /https:\/\/dashboard\.example\.net\/reset-password\?token=[A-Za-z0-9_-]{43}\b/, 'the link leads to the configured URL, not the Host given');
});

t.test('without a system sender, asking answers 503 whatever the email, and the form says so', async (t) => {
  const bare = await startHarness();
  t.teardown(() => bare.close());
  const account = await bare.account();
  const made = await createIdentity(bare.rt).users.create(account.id, { email: 'someone@dest.test', role: 'owner' }, log);
  t.ok(made.ok);
  for (const email of ['someone@dest.test', 'nobody@dest.test']) {
    t.match(await bare.request('POST', LOST, { body: { email } }), { status: 503, body: { code: 'rest_system_mail_unavailable' } });
  }
  const shown = await fetch(`${bare.url}/forgot-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: bare.url },
    body: 'email=someone%40dest.test',
  });
  t.equal(shown.status, 503);
  const text = await shown.text();
  t.match(text, /has not chosen the address Tern sends from/, 'a sentence meant for the user');
  t.notMatch(text, /systemMail|TERNMAIL_/, 'naming no setting');
});

let browser: TestBrowser | undefined;
t.teardown(() => browser?.close());

t.test("in Chromium: from the sign-in page's link to a new password that signs in, with no serious accessibility violation", async (t) => {
  const u = await user();
  browser = await startBrowser();
  const p = await browser.context.newPage();
  await p.goto(`${h.url}/wp-login.php`);
  await Promise.all([p.waitForURL((url) => url.pathname === '/forgot-password'), p.click('a[href="/forgot-password"]')]);
  t.same(await seriousViolations(p), [], 'the request form');
  await p.fill('#email', u.email);
  await p.click('#send-link');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /If an account exists for that address/);

  const token = await tokenFromMail(u.email);
  await p.goto(`${h.url}/reset-password?token=${token}`);
  t.same(await seriousViolations(p), [], 'the new password form');
  await p.fill('#password', NEW_PASSWORD);
  await p.fill('#password_again', NEW_PASSWORD);
  await p.click('#set-password');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /Your password has been changed/);
  await Promise.all([p.waitForURL((url) => url.pathname === '/wp-login.php'), p.click('a[href="/wp-login.php"]')]);
  await p.fill('#email', u.email);
  await p.fill('#password', NEW_PASSWORD);
  await Promise.all([p.waitForURL((url) => url.pathname === '/'), p.click('#sign-in')]);
  t.equal(await p.textContent('h1'), 'Overview', 'signed in with the new password');
});
