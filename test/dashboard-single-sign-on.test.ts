// Single sign-on between two Tern dashboards over real HTTP: two API instances (two data dirs, two stores, two
// Redis), A registering B as a child and B registering A as a parent. A user signed in on A asks A for a link
// to B, B shows who it signs in as and signs them in on their "Continue" (the session cookie, an auth log entry
// of method sso); the same token again, an altered one, an expired one, one of an unknown pair, one for a user B
// does not have and a post from another site are refused; A's validate-token answers a child that proves itself
// with the secret; the routes' refusals (400 data.params, 401, 403, 404) and every change in the audit log.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, PASSWORD, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { page } from './helpers/web-pages.js';
import { signInInBrowser, startBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { signSsoToken } from '../shared/core/identity/sso-token.js';
import { createLogger } from '../shared/log.js';

// Loopback http URLs are allowed only where private addresses are (tests, closed networks).
const env = { TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true' };
const THROTTLE = 40;
const a: Harness = await startHarness({ env });
const b: Harness = await startHarness({ env, overrides: { dashboard: { sso: { tokenTtlS: 60, perAddressPerHour: THROTTLE } } } });
t.teardown(async () => {
  await a.close();
  await b.close();
});

const AUTH = '/api/tern-auth/v1';
const log = createLogger('test', 'silent');
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });
const operatorA = await logIn(a, await operatorOn(a));
const operatorB = await logIn(b, await operatorOn(b));

/** A's registration of B, and B's of A with what A answered. */
const child = await a.request('POST', `${AUTH}/child-sites`, as(operatorA, { name: 'Regional dashboard', url: b.url }));
const { site_id: siteId, secret } = child.body.connection as { site_id: string; secret: string };
const childId = child.body.site.id as number;
const parent = await b.request('POST', `${AUTH}/parent-sites`, as(operatorB, { name: 'Main dashboard', url: a.url, site_id: siteId, secret }));

/** A user of an account on A, and one of the same email on an account of B. */
async function userOnBoth(): Promise<{ session: SignedIn; email: string; accountB: number }> {
  const onA = await signedInOn(a);
  const accountB = await b.account();
  const identity = createIdentity(b.rt);
  const made = await identity.users.create(accountB.id, { email: onA.email, role: 'admin' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const changed = await identity.users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  if (!changed.ok) throw new Error(JSON.stringify(changed.refusal));
  return { session: onA.session, email: onA.email, accountB: accountB.id };
}

/** A's sign-in link to B for a signed-in user of A: its token. */
async function linkFor(s: SignedIn, body: Record<string, unknown> = {}): Promise<string> {
  const reply = await a.request('POST', `${AUTH}/child-sites/${childId}/login-url`, as(s, body));
  if (reply.status !== 200) throw new Error(`${reply.status} ${reply.text}`);
  return new URL(reply.body.url as string).searchParams.get('token')!;
}

const accept = (token: string, headers: Record<string, string> = {}) => page(b, 'POST', '/sso/accept', { form: { token }, headers });
const shown = (token: string) => page(b, 'GET', `/sso/accept?${new URLSearchParams({ token }).toString()}`);

t.test('each side registers the other: the secret answered once, the listings show no secret, both audited', async (t) => {
  t.equal(child.status, 201, child.text);
  t.match(child.body, { site: { id: Number, site_id: /^[0-9a-f]{32}$/, name: 'Regional dashboard', url: b.url }, secret: /^[A-Za-z0-9_-]{43}$/ });
  t.equal(parent.status, 201, parent.text);
  t.match(parent.body, { site: { site_id: siteId, name: 'Main dashboard', url: a.url } });
  const listed = await a.request('GET', `${AUTH}/child-sites`, as(operatorA));
  t.same(
    listed.body.sites.map((s: { id: number }) => s.id),
    [childId],
  );
  t.notOk(listed.text.includes(secret), 'the listing never carries the secret');
  t.notOk((await b.request('GET', `${AUTH}/parent-sites`, as(operatorB))).text.includes(secret));
  const audited = (await a.rt.store.auditLog.list({ targetId: String(childId) }, { page: 1, perPage: 5 })).rows;
  t.match(audited, [{ action: 'sso_site.create', target: { kind: 'sso_site' }, after: { site_id: siteId, url: b.url } }]);
  t.notOk(JSON.stringify(audited).includes(secret), 'nor does the audit log');
  t.match((await b.rt.store.auditLog.list({}, { page: 1, perPage: 5 })).rows, [{ action: 'sso_site.create', after: { site_id: siteId } }]);
});

t.test('a user signed in on A hops to B and is signed in there, recorded as a sign-in by sso', async (t) => {
  const user = await userOnBoth();
  const reply = await a.request('POST', `${AUTH}/child-sites/${childId}/login-url`, as(user.session, { redirect_to: '/domains' }));
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, { site: { id: childId }, url: `${b.url}/sso/accept?token=`, expires_at: String });
  const token = new URL(reply.body.url as string).searchParams.get('token')!;
  const confirm = await shown(token);
  t.equal(confirm.status, 200, confirm.text);
  t.match(confirm.text, /Main dashboard sends you here/);
  t.match(confirm.text, user.email);
  t.equal(confirm.headers.get('set-cookie'), null, 'showing the token signs nobody in');
  const signedIn = await accept(token);
  t.equal(signedIn.status, 303, signedIn.text);
  t.equal(signedIn.headers.get('location'), '/domains', 'where A asked, checked again by B');
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.match(cookie, /^tern_session=/);
  const home = await page(b, 'GET', '/', { cookie });
  t.equal(home.status, 200, 'the session works on B');
  t.match(home.text, user.email);
  const entries = (await b.rt.store.authLog.list(user.accountB, { page: 1, perPage: 5 })).rows;
  t.match(entries, [{ email: user.email, result: 'success', method: 'sso' }]);
  const onB = await logIn(b, user.email);
  t.match(
    (await b.request('GET', `${AUTH}/auth-logs`, as(onB))).body,
    [
      { email: user.email, method: 'password' },
      { email: user.email, method: 'sso' },
    ],
    'the REST log says how',
  );

  t.equal((await accept(token)).status, 403, 'the same token again is refused');
});

t.test('altered, expired, unknown-pair and cross-site tokens are refused, and so is a user B does not have', async (t) => {
  const user = await userOnBoth();
  const token = await linkFor(user.session);
  const [v, payload, mac] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const altered = `${v}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone.else@example.com' })).toString('base64url')}.${mac}`;
  t.equal((await shown(altered)).status, 403, 'another email under the same signature: shown as refused');
  t.equal((await accept(altered)).status, 403, 'and refused');
  t.equal((await accept(`${token.slice(0, -2)}AA`)).status, 403, 'a changed signature');
  const jti = () => randomBytes(16).toString('hex');
  const expired = signSsoToken({ sid: siteId, sub: user.email, jti: jti(), exp: Date.now() - 1000, to: null }, secret);
  t.equal((await accept(expired)).status, 403, 'expired');
  const unknownPair = signSsoToken({ sid: randomBytes(16).toString('hex'), sub: user.email, jti: jti(), exp: Date.now() + 60_000, to: null }, secret);
  t.equal((await accept(unknownPair)).status, 403, 'a pair B does not know');
  const crossSite = await accept(token, { origin: 'https://evil.example' });
  t.equal(crossSite.status, 403, 'posted from another site');
  t.equal(crossSite.headers.get('set-cookie'), null);
  const offSite = signSsoToken({ sid: siteId, sub: user.email, jti: jti(), exp: Date.now() + 60_000, to: '//evil.example/x' }, secret);
  const landed = await accept(offSite);
  t.equal(landed.status, 303, 'a token signed with the secret still signs in');
  t.equal(landed.headers.get('location'), '/', 'but never leaves B: a path of another host is not followed');
  t.equal((await accept(token)).status, 303, 'the real token, unspent by the refusals, still works once');

  const onlyOnA = await signedInOn(a);
  const refused = await accept(await linkFor(onlyOnA.session));
  t.equal(refused.status, 403, 'no account is created for an email B does not have');
  t.equal(await b.rt.store.users.findByEmail(onlyOnA.email), undefined);
});

t.test('validate-token is public: a child proving itself with the secret learns the email once; anything else is refused alike', async (t) => {
  const user = await userOnBoth();
  const validate = (body: Record<string, unknown>) => a.request('POST', `${AUTH}/child-sites/validate-token`, { body });
  const token = await linkFor(user.session);
  t.match((await validate({ site_id: siteId, secret: 'x'.repeat(43), token })).body, { code: 'tern_sso_token_invalid', data: { status: 403 } }, 'a wrong secret');
  const valid = await validate({ site_id: siteId, secret, token });
  t.equal(valid.status, 200, valid.text);
  t.match(valid.body, { valid: true, email: user.email, expires_at: String, redirect_to: null });
  t.equal((await validate({ site_id: siteId, secret, token })).status, 403, 'spent');
  t.equal((await validate({ site_id: 'f'.repeat(32), secret, token: await linkFor(user.session) })).status, 403, 'an unknown site');
  t.match((await validate({ site_id: siteId, secret })).body, { code: 'rest_missing_callback_param', data: { status: 400, params: ['token'] } });
});

t.test('the routes: bad input is 400 with data.params, anonymous 401, non-operators 403, unknown 404; removal is audited and ends the pairing', async (t) => {
  const bad = await a.request('POST', `${AUTH}/child-sites`, as(operatorA, { name: ' ', url: b.url }));
  t.equal(bad.status, 400, bad.text);
  t.match(bad.body, { code: 'rest_invalid_param', data: { params: { name: String } } });
  for (const url of ['http://dashboard.example.com', 'https://dashboard.example.com/path', 'https://10.0.0.1', 'ftp://x.example.com'])
    t.match((await a.request('POST', `${AUTH}/child-sites`, as(operatorA, { name: 'x', url }))).body, { data: { params: { url: String } } }, url);
  t.match((await a.request('POST', `${AUTH}/child-sites`, as(operatorA, { name: 'again', url: b.url }))).body, { data: { params: { url: /registered already/ } } });
  t.match((await b.request('POST', `${AUTH}/parent-sites`, as(operatorB, { name: 'x', url: a.url, site_id: 'nope', secret: 'short' }))).body, {
    data: { params: { site_id: String } },
  });
  t.equal((await a.request('GET', `${AUTH}/child-sites`)).status, 401, 'anonymous');
  t.equal((await a.request('POST', `${AUTH}/child-sites/${childId}/login-url`, { body: {} })).status, 401, 'anonymous link');
  const owner = await signedInOn(a);
  t.equal((await a.request('GET', `${AUTH}/child-sites`, as(owner.session))).status, 403, "an account's owner is no operator");
  t.equal((await a.request('POST', `${AUTH}/child-sites`, as(owner.session, { name: 'x', url: b.url }))).status, 403);
  t.match((await a.request('POST', `${AUTH}/child-sites/${childId}/login-url`, as(owner.session, { redirect_to: '//evil.example' }))).body, {
    data: { status: 400, params: { redirect_to: String } },
  });
  t.equal((await a.request('POST', `${AUTH}/child-sites/99999/login-url`, as(owner.session, {}))).status, 404);

  const user = await userOnBoth();
  const token = await linkFor(user.session);
  const parentId = parent.body.site.id as number;
  const removed = await b.request('DELETE', `${AUTH}/parent-sites/${parentId}`, as(operatorB));
  t.match(removed.body, { deleted: true, previous: { id: parentId, site_id: siteId } });
  t.equal((await accept(token)).status, 403, 'B no longer accepts A’s tokens');
  t.equal((await b.request('DELETE', `${AUTH}/parent-sites/${parentId}`, as(operatorB))).status, 404);
  t.equal((await a.request('DELETE', `${AUTH}/child-sites/${childId}`, as(owner.session))).status, 403);
  t.equal((await a.request('DELETE', `${AUTH}/child-sites/${childId}`, as(operatorA))).status, 200);
  t.equal((await a.request('POST', `${AUTH}/child-sites/${childId}/login-url`, as(user.session, {}))).status, 404, 'no link to a removed child');
  const actions = (await a.rt.store.auditLog.list({ targetId: String(childId) }, { page: 1, perPage: 5 })).rows.map((e) => e.action);
  t.same(actions, ['sso_site.remove', 'sso_site.create']);
});

t.test(
  'in Chromium: operators pair A and B on /admin/single-sign-on, a user goes from A’s Dashboards page to B and continues signed in, A removes the child; the pages accessible',
  async (t) => {
    // B by the name localhost, A by 127.0.0.1: a browser keeps cookies by host, not port, so the two sessions stay apart.
    const bLocal = b.url.replace('127.0.0.1', 'localhost');
    const browser = await startBrowser();
    t.teardown(() => browser.close());
    const onA = await browser.context.newPage();
    await signInInBrowser(onA, a.url, await operatorOn(a), PASSWORD, (path) => path.startsWith('/admin'));
    await onA.goto(`${a.url}/admin/single-sign-on`);
    t.same(await seriousViolations(onA), [], 'the page with no dashboard paired');
    await onA.fill('#child-url', 'http://regional.example.com');
    await onA.fill('#child-name', 'Regional');
    await onA.click('#register-child');
    t.match(await onA.textContent('[role=alert]'), /Address must use https/, 'refused in the form’s words');
    await onA.fill('#child-url', bLocal);
    await onA.click('#register-child');
    t.match(await (await onA.waitForSelector('p.notice')).textContent(), /The child dashboard is registered/);
    const pairId = (await onA.textContent('#new-site-id'))!.trim();
    const pairSecret = (await onA.textContent('#new-secret'))!.trim();
    t.match(pairSecret, /^[A-Za-z0-9_-]{43}$/, 'the secret shown once');
    t.same(await seriousViolations(onA), [], 'the page with its secret shown');
    await onA.reload();
    t.equal(await onA.locator('#new-secret').count(), 0, 'and never again');

    const onB = await browser.context.newPage();
    await signInInBrowser(onB, bLocal, await operatorOn(b), PASSWORD, (path) => path.startsWith('/admin'));
    await onB.goto(`${bLocal}/admin/single-sign-on`);
    await onB.fill('#parent-name', 'Main');
    await onB.fill('#parent-url', a.url);
    await onB.fill('#parent-site_id', pairId);
    await onB.fill('#parent-secret', pairSecret);
    await onB.click('#register-parent');
    t.match(await (await onB.waitForSelector('p.notice')).textContent(), /The parent dashboard is registered/);

    // The user signs in on A (their cookie in place of the operator's), goes to B from A's Dashboards page, continues.
    const user = await userOnBoth();
    const site = (await a.rt.store.singleSignOn.list('child')).find((x) => x.siteId === pairId)!;
    const [name, value] = user.session.cookie.split('=') as [string, string];
    await browser.context.addCookies([{ name, value, url: a.url }]);
    await onA.goto(`${a.url}/dashboards`);
    t.same(await seriousViolations(onA), [], 'the dashboards a user may go to');
    await Promise.all([onA.waitForURL((url) => url.pathname === '/sso/accept'), onA.click(`#go-${site.id}`)]);
    t.equal(new URL(onA.url()).origin, bLocal, 'the button leads to B');
    t.match(await onA.textContent('main'), `Main sends you here signed in as ${user.email}`);
    t.same(await seriousViolations(onA), [], 'the page that asks to continue');
    await Promise.all([onA.waitForURL((url) => url.pathname === '/'), onA.click('#continue')]);
    t.match(await onA.textContent('body'), user.email, 'signed in on B as the user');

    await signInInBrowser(onA, a.url, await operatorOn(a), PASSWORD, (path) => path.startsWith('/admin'));
    await onA.goto(`${a.url}/admin/single-sign-on`);
    onA.on('dialog', (d) => void d.accept());
    await onA.click(`#remove-${site.id}`);
    t.match(await (await onA.waitForSelector('p.notice')).textContent(), /The dashboard is removed/);
    t.same(await a.rt.store.singleSignOn.list('child'), []);
  },
);

t.test('tokens presented from one address are throttled before they are checked', async (t) => {
  let status = 0;
  let tries = 0;
  while (status !== 429 && tries <= THROTTLE + 1) {
    status = (await accept(`v1.${'x'.repeat(20)}.${'y'.repeat(43)}`)).status;
    tries += 1;
  }
  t.equal(status, 429, `refused after at most ${THROTTLE} refusals (${tries} tries)`);
});
