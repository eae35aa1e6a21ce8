// Authorizing an application as WordPress does (issue 11, Must show 2), driven in a real Chromium: an application
// sends the user to /wp-admin/authorize-application.php, the user signs in, approves, and the browser lands on the
// application's success_url with site_url, user_login and password, which then works as HTTP Basic until it is
// revoked. Rejecting, and every refusal (bad URLs, a bad app_id, an open redirect, a missing CSRF token), over HTTP.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, PASSWORD, userOn, withSession } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';

const AUTHORIZE = '/wp-admin/authorize-application.php';
const SIGN_IN = '/wp-login.php';

let h: Harness;
let browser: TestBrowser;
let app: ClientApp;

/** The application asking for access: a web server on loopback that records where the browser is sent. */
interface ClientApp {
  origin: string;
  visits: URL[];
  close(): Promise<void>;
}

async function startClientApp(): Promise<ClientApp> {
  const visits: URL[] = [];
  const server = createServer((req, res) => {
    visits.push(new URL(req.url ?? '/', origin));
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Client app</title><p>Thanks</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, visits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

t.before(async () => {
  h = await startHarness();
  app = await startClientApp();
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await app?.close();
  await h?.close();
});

const authorizePath = (params: Record<string, string>): string => `${AUTHORIZE}?${new URLSearchParams(params).toString()}`;

const basic = (email: string, password: string) => ({ headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` } });

/** A fresh owner on a new account, with PASSWORD. */
async function newUser(): Promise<string> {
  return userOn(h, (await h.account()).id, 'owner');
}

interface PageReply {
  status: number;
  headers: Headers;
  text: string;
}

/** A page request that does not follow redirects; `form` is posted urlencoded. */
async function page(
  method: 'GET' | 'POST',
  path: string,
  o: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<PageReply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.cookie) headers.cookie = o.cookie;
  if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(h.url + path, { method, headers, body: o.form ? new URLSearchParams(o.form).toString() : undefined, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Signs in through the sign-in page's form; the session cookie it sets. */
async function signInOverHttp(email: string): Promise<string> {
  const reply = await page('POST', SIGN_IN, { form: { email, password: PASSWORD } });
  const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (!cookie.startsWith('tern_session=')) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
  return cookie;
}

/** The CSRF token of the approval form the signed-in user is shown for `params`. */
async function formToken(cookie: string, params: Record<string, string>): Promise<string> {
  const shown = await page('GET', authorizePath(params), { cookie });
  const token = /name="_wpnonce" value="([0-9a-f]{10})"/.exec(shown.text)?.[1];
  if (!token) throw new Error(`no form token: ${shown.status} ${shown.text}`);
  return token;
}

/** The user's application passwords, as the dashboard lists them (a session of its own). */
async function applicationPasswordsOf(email: string): Promise<Array<{ uuid: string; name: string; app_id: string }>> {
  const s = await logIn(h, email);
  return (await h.request('GET', '/api/wp/v2/users/me/application-passwords', withSession(s))).body as Array<{ uuid: string; name: string; app_id: string }>;
}

/** A new tab of a browser that has no session yet (each test signs in as its own user). */
async function freshTab(): Promise<Page> {
  await browser.context.clearCookies();
  return browser.context.newPage();
}

async function signInInBrowser(p: Page, email: string): Promise<void> {
  await p.fill('#email', email);
  await p.fill('#password', PASSWORD);
  await Promise.all([p.waitForURL((u) => u.pathname === AUTHORIZE), p.click('#sign-in')]);
}

t.test('an application gets a password in the browser: sign in, approve, success_url gets it, HTTP Basic works with it until it is revoked', async (t) => {
  const email = await newUser();
  const appId = randomUUID();
  const successUrl = `${app.origin}/connected?state=s%20tate&x=1`;
  const p = await freshTab();
  await p.goto(h.url + authorizePath({ app_name: 'Mail Client', app_id: appId, success_url: successUrl }));
  const signInAt = new URL(p.url());
  t.equal(signInAt.pathname, SIGN_IN, 'a visitor who is not signed in is sent to the sign-in page');
  t.equal(signInAt.searchParams.get('redirect_to'), authorizePath({ app_name: 'Mail Client', app_id: appId, success_url: successUrl }), 'which brings them back');

  const refusedByPolicy: string[] = [];
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refusedByPolicy.push(m.text());
  });
  await signInInBrowser(p, email);
  t.equal(await p.textContent('#app-name'), 'Mail Client', 'the page names the application');
  t.equal(await p.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(243, 244, 246)', 'the stylesheet applies under the CSP');
  t.equal(await p.textContent('#user-login'), email, 'and the user');

  await Promise.all([p.waitForURL((u) => u.origin === app.origin), p.click('#approve')]);
  const landed = new URL(p.url());
  t.equal(landed.pathname, '/connected', 'the browser lands on the success_url');
  t.same(refusedByPolicy, [], 'the browser refused nothing under the Content-Security-Policy');
  t.equal(landed.search.startsWith('?state=s%20tate&x=1&'), true, 'its own query kept as it was written');
  t.equal(landed.searchParams.get('site_url'), h.url, 'site_url: the dashboard');
  t.equal(landed.searchParams.get('user_login'), email, 'user_login: the email');
  const password = landed.searchParams.get('password') ?? '';
  t.match(password, /^[A-Za-z0-9]{24}$/, 'password: 24 characters');
  t.equal(app.visits.find((v) => v.pathname === '/connected')?.searchParams.get('password'), password, 'the application received it');
  await p.close();

  const listed = await h.request('GET', '/api/wp/v2/users/me/application-passwords', basic(email, password));
  t.equal(listed.status, 200, 'HTTP Basic with the password and no nonce works');
  const created = (listed.body as Array<{ uuid: string; name: string; app_id: string }>).find((x) => x.app_id === appId);
  t.match(created, { name: 'Mail Client', app_id: appId }, 'the password is named after the application, its app_id recorded');

  const revoked = await h.request('DELETE', `/api/wp/v2/users/me/application-passwords/${created!.uuid}`, basic(email, password));
  t.equal(revoked.status, 200, 'revoked with its own password');
  const after = await h.request('GET', '/api/wp/v2/users/me/application-passwords', basic(email, password));
  t.equal(after.status, 401, 'once revoked, the same Basic call is refused');
  t.match(after.body, { code: 'incorrect_password' });
});

t.test('rejecting sends the browser to reject_url, or to success_url?success=false without one, and creates nothing', async (t) => {
  const email = await newUser();
  const p = await freshTab();
  const withReject = { app_name: 'Rejected App', success_url: `${app.origin}/ok`, reject_url: `${app.origin}/no?why=user` };
  await p.goto(h.url + authorizePath(withReject));
  await signInInBrowser(p, email);
  await Promise.all([p.waitForURL((u) => u.origin === app.origin), p.click('#reject')]);
  t.equal(p.url(), `${app.origin}/no?why=user`, 'reject_url, as given');

  await p.goto(h.url + authorizePath({ app_name: 'Rejected App', success_url: `${app.origin}/ok?a=1` }));
  t.equal(new URL(p.url()).pathname, AUTHORIZE, 'still signed in: the form again');
  await Promise.all([p.waitForURL((u) => u.origin === app.origin), p.click('#reject')]);
  t.equal(p.url(), `${app.origin}/ok?a=1&success=false`, 'without reject_url: success_url with success=false');
  await p.close();
  t.same(await applicationPasswordsOf(email), [], 'no application password was made');
});

t.test('without a success_url the password is shown once on the page, and works', async (t) => {
  const email = await newUser();
  const cookie = await signInOverHttp(email);
  const params = { app_name: 'Desktop tool' };
  const token = await formToken(cookie, params);
  const approved = await page('POST', AUTHORIZE, { cookie, form: { ...params, _wpnonce: token, approve: '1' } });
  t.equal(approved.status, 200, 'the page answers');
  const shown = /<kbd id="password">([a-zA-Z0-9 ]+)<\/kbd>/.exec(approved.text)?.[1] ?? '';
  t.match(shown, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/, 'in groups of four, as WordPress shows it');
  t.equal(approved.headers.get('cache-control'), 'no-store', 'never cached');
  const used = await h.request('GET', '/api/tern-auth/v1/quick-stats', basic(email, shown));
  t.equal(used.status, 200, 'the password shown works, spaces and all');
});

t.test('success_url and reject_url must be https, or http on loopback: anything else is an error page and creates nothing', async (t) => {
  const email = await newUser();
  const cookie = await signInOverHttp(email);
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ success_url: 'http://app.example/done' }, /success_url must use https/],
    [{ success_url: 'https://app.example/done', reject_url: 'http://app.example/no' }, /reject_url must use https/],
    [{ success_url: 'javascript:alert(1)' }, /success_url must use https/],
    [{ success_url: 'ftp://app.example/' }, /success_url must use https/],
    [{ success_url: '/relative' }, /success_url must be an absolute URL/],
  ];
  for (const [urls, message] of bad) {
    const params = { app_name: 'App', ...urls };
    const shown = await page('GET', authorizePath(params), { cookie });
    t.equal(shown.status, 400, `${JSON.stringify(urls)} refused`);
    t.match(shown.text, message);
    t.notMatch(shown.text, /_wpnonce/, 'no form is shown');
    // Posting it anyway (with a valid token from a good request) changes nothing either.
    const token = await formToken(cookie, { app_name: 'App' });
    const posted = await page('POST', AUTHORIZE, { cookie, form: { ...params, _wpnonce: token, approve: '1' } });
    t.equal(posted.status, 400, 'the form is checked again when posted');
    t.equal(posted.headers.get('location'), null, 'and sends nobody anywhere');
  }
  for (const host of ['127.0.0.1:9', 'localhost:9', '[::1]:9']) {
    const shown = await page('GET', authorizePath({ app_name: 'App', success_url: `http://${host}/done` }), { cookie });
    t.equal(shown.status, 200, `http on loopback (${host}) is allowed`);
  }
  t.same(await applicationPasswordsOf(email), [], 'nothing was created');
});

t.test('a bad app_id and a missing app_name are refused with an error page', async (t) => {
  const cookie = await signInOverHttp(await newUser());
  const badId = await page('GET', authorizePath({ app_name: 'App', app_id: 'not-a-uuid', success_url: 'https://app.example/' }), { cookie });
  t.equal(badId.status, 400);
  t.match(badId.text, /app_id must be a UUID/);
  const anonymous = await page('GET', authorizePath({ app_name: 'App', app_id: '1234' }));
  t.equal(anonymous.status, 400, 'refused before anyone is asked to sign in');
  const noName = await page('GET', authorizePath({ success_url: 'https://app.example/' }), { cookie });
  t.equal(noName.status, 400);
  t.match(noName.text, /app_name is required/);
});

t.test('the sign-in page never redirects off this site: redirect_to must be a path of the site, before and after the password', async (t) => {
  const email = await newUser();
  for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'evil.example']) {
    const shown = await page('GET', `${SIGN_IN}?${new URLSearchParams({ redirect_to: target }).toString()}`);
    t.equal(shown.status, 400, `GET with redirect_to=${target} refused`);
    const posted = await page('POST', SIGN_IN, { form: { email, password: PASSWORD, redirect_to: target } });
    t.equal(posted.status, 400, `POST with redirect_to=${target} refused`);
    t.equal(posted.headers.get('location'), null, 'no redirect');
    t.equal(posted.headers.get('set-cookie'), null, 'and no session');
  }
  const good = await page('POST', SIGN_IN, { form: { email, password: PASSWORD, redirect_to: '/wp-admin/authorize-application.php?app_name=A' } });
  t.equal(good.status, 303);
  t.equal(good.headers.get('location'), '/wp-admin/authorize-application.php?app_name=A', 'a path of the site is followed');
  t.match(good.headers.get('set-cookie'), /^tern_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/, 'the login route’s cookie');
});

t.test('signing in on the page is the core login: failures answer 401, are recorded in the auth log, and are throttled', async (t) => {
  const email = await newUser();
  const wrong = await page('POST', SIGN_IN, { form: { email, password: 'not the password at all' }, headers: { 'user-agent': 'page-test-agent' } });
  t.equal(wrong.status, 401);
  t.match(wrong.text, /The email address or the password is incorrect/);
  t.match(wrong.text, new RegExp(`value="${email.replace(/\./g, '\\.')}"`), 'the form keeps the email typed');
  const s = await logIn(h, email);
  const log = (await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(s))).body as Array<{ email: string; result: string; user_agent: string }>;
  t.ok(
    log.some((e) => e.email === email && e.result === 'failure' && e.user_agent === 'page-test-agent'),
    'the failure is in the auth log',
  );
  for (let i = 0; i < h.config.dashboard.login.failuresPerEmail; i++) await page('POST', SIGN_IN, { form: { email, password: 'wrong again, and again' } });
  const locked = await page('POST', SIGN_IN, { form: { email, password: PASSWORD } });
  t.equal(locked.status, 429, 'throttled like the login route, even with the right password');
  t.ok(Number(locked.headers.get('retry-after')) > 0, 'Retry-After says how long');
});

t.test('the approval form is checked: no CSRF token, a wrong one, another session’s, another site’s form, or no session create nothing', async (t) => {
  const email = await newUser();
  const cookie = await signInOverHttp(email);
  const other = await signInOverHttp(await newUser());
  const params = { app_name: 'CSRF', success_url: 'https://app.example/done' };
  const token = await formToken(cookie, params);
  const rest = await logIn(h, email);
  const cases: Array<[string, Parameters<typeof page>[2], number]> = [
    ['no token', { cookie, form: { ...params, approve: '1' } }, 403],
    ['a wrong token', { cookie, form: { ...params, approve: '1', _wpnonce: '0123456789' } }, 403],
    ['another session’s token', { cookie, form: { ...params, approve: '1', _wpnonce: await formToken(other, params) } }, 403],
    ['the session’s REST nonce (another action)', { cookie: rest.cookie, form: { ...params, approve: '1', _wpnonce: rest.nonce } }, 403],
    ['no session', { form: { ...params, approve: '1', _wpnonce: token } }, 403],
    ['a form from another site', { cookie, form: { ...params, approve: '1', _wpnonce: token }, headers: { origin: 'https://evil.example' } }, 403],
  ];
  for (const [what, options, status] of cases) {
    const posted = await page('POST', AUTHORIZE, options);
    t.equal(posted.status, status, `${what}: refused`);
    t.equal(posted.headers.get('location'), null, `${what}: no redirect`);
  }
  t.same(await applicationPasswordsOf(email), [], 'nothing was created');
  const right = await page('POST', AUTHORIZE, { cookie, form: { ...params, approve: '1', _wpnonce: token }, headers: { origin: h.url } });
  t.equal(right.status, 302, 'the same form with its token, from this site, is approved');
  t.match(right.headers.get('location'), /^https:\/\/app\.example\/done\?site_url=/);
});

t.test('pages carry a strict CSP, are never framed nor cached, and escape what they show', async (t) => {
  const cookie = await signInOverHttp(await newUser());
  const params = { app_name: '<script>alert("x")</script>', success_url: 'https://app.example/done', reject_url: 'https://no.example/' };
  const shown = await page('GET', authorizePath(params), { cookie });
  t.equal(shown.status, 200);
  t.notMatch(shown.text, /<script>/, 'no markup from the request');
  t.match(shown.text, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/, 'the name is shown escaped');
  const csp = shown.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /style-src 'self'/, 'only the stylesheets of this site');
  t.notMatch(csp, /unsafe-inline/, 'nothing inline');
  t.match(csp, /form-action 'self' https:\/\/app\.example https:\/\/no\.example/, 'the form may only lead here and to the application');
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(csp, /script-src|unsafe-inline/, 'no script at all');
  t.equal(shown.headers.get('x-frame-options'), 'DENY');
  t.equal(shown.headers.get('cache-control'), 'no-store');
  t.equal(shown.headers.get('content-type'), 'text/html; charset=utf-8');
  for (const path of [SIGN_IN, authorizePath({ app_name: 'A' })]) {
    const reply = await page('GET', path);
    t.equal(reply.headers.get('x-frame-options'), 'DENY', `${path}: never framed`);
    t.equal(reply.headers.get('cache-control'), 'no-store', `${path}: never cached`);
    t.match(reply.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  }
});
