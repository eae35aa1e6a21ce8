// The dashboard's frame (issue 13): signed-in pages behind the session cookie, the team switcher, logging out,
// the forced password change, forms refused without their CSRF token or from another site, the static files
// hashed, cached for good and compressed, and the overview in a real Chromium under the Content-Security-Policy
// with no serious accessibility violation.
import t from 'tap';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from './helpers/harness.js';
import { PASSWORD, userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';

let h: Harness;
let browser: TestBrowser;

t.before(async () => {
  h = await startHarness();
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

const newOwner = async () => userOn(h, (await h.account()).id, 'owner');

async function signInInBrowser(email: string): Promise<Page> {
  return signedInTab(browser, h.url, email);
}

t.test('a visitor without a session is sent to sign in, and comes back to the page asked for', async (t) => {
  const reply = await page(h, 'GET', '/?done=x&y=1');
  t.equal(reply.status, 302);
  t.equal(reply.headers.get('location'), '/wp-login.php?redirect_to=%2F%3Fdone%3Dx%26y%3D1');
});

t.test('the overview in Chromium: the frame, the figures, nothing refused by the CSP, no serious accessibility violation', async (t) => {
  const email = await newOwner();
  const p = await signInInBrowser(email);
  const refused: string[] = [];
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  await p.reload();
  t.equal(await p.textContent('h1'), 'Overview');
  t.equal(await p.getAttribute('nav.sections a[aria-current="page"]', 'href'), '/', 'the section is marked current');
  t.equal((await p.textContent('#queue-depth'))?.trim(), '0', 'the queue depth is shown');
  t.ok(await p.isVisible('figure.chart'), 'the chart is there');
  await p.waitForSelector('figure.chart canvas', { timeout: 20_000 });
  t.pass('uPlot drew the chart from the REST route with the session nonce');
  t.not(await p.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgba(0, 0, 0, 0)', 'the stylesheet applies');
  t.same(refused, [], 'the browser refused nothing under the Content-Security-Policy');
  t.same(await seriousViolations(p), [], 'no serious or critical accessibility violation');
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.emulateMedia({ colorScheme: 'dark' });
  t.equal(await p.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(17, 19, 22)', 'the system’s dark mode is followed');
  t.same(await seriousViolations(p), [], 'and its contrast holds in the dark too');
  await p.close();
});

t.test('every page carries a strict CSP and is compressed when the browser accepts it', async (t) => {
  const cookie = await signInOverHttp(h, await newOwner());
  const res = await fetch(`${h.url}/`, { headers: { cookie, 'accept-encoding': 'br, gzip' } });
  const csp = res.headers.get('content-security-policy') ?? '';
  t.match(csp, /script-src 'self'/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline script or style, no eval');
  t.match(csp, /frame-ancestors 'none'/);
  t.equal(res.headers.get('x-frame-options'), 'DENY');
  t.equal(res.headers.get('content-encoding'), 'br');
  t.match(await res.text(), /<h1>Overview<\/h1>/, 'decoded, the page');
});

t.test('static files: named by hash, cached for a year, compressed; another name is 404', async (t) => {
  const cookie = await signInOverHttp(h, await newOwner());
  const shown = await page(h, 'GET', '/', { cookie });
  const css = /href="(\/assets\/app\.[0-9a-f]{12}\.css)"/.exec(shown.text)?.[1] ?? '';
  t.ok(css, 'the page links its stylesheet by hash');
  const res = await fetch(h.url + css, { headers: { 'accept-encoding': 'gzip' } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.equal(res.headers.get('content-encoding'), 'gzip');
  t.match(await res.text(), /prefers-color-scheme: dark/);
  t.equal((await fetch(`${h.url}/assets/app.000000000000.css`)).status, 404);
});

t.test('the team switcher moves the pages to another team of the account; a team of another account is 404', async (t) => {
  const account = await h.account();
  const child = await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key: account.key, body: { name: 'Shop <b>EU</b>' } });
  const childId = String(child.body.data.id);
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const guard = await formGuardOf(h, cookie);
  const switched = await page(h, 'POST', '/switch-team', { cookie, form: { _wpnonce: guard._wpnonce!, team: childId, redirect_to: '/' } });
  t.equal(switched.status, 303);
  const teamCookie = (switched.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.equal(teamCookie, `tern_team=${childId}`);
  const shown = await page(h, 'GET', '/', { cookie: `${cookie}; ${teamCookie}` });
  t.match(shown.text, new RegExp(`<option value="${childId}" selected>Shop &lt;b&gt;EU&lt;/b&gt;</option>`), 'the child team is selected, its name escaped');
  t.match(shown.text, new RegExp(`data-team="${childId}"`), 'the page acts on it');

  const other = await h.account();
  const refused = await page(h, 'POST', '/switch-team', { cookie, form: { _wpnonce: guard._wpnonce!, team: String(other.id) } });
  t.equal(refused.status, 404, "another account's team is not found");
  const forged = await page(h, 'POST', '/switch-team', { cookie, form: { ...guard, _team: String(other.id), team: childId } });
  t.equal(forged.status, 404, "a form naming another account's team is not found");
});

t.test('forms without their CSRF token or from another site change nothing', async (t) => {
  const cookie = await signInOverHttp(h, await newOwner());
  const noToken = await page(h, 'POST', '/logout', { cookie, form: {} });
  t.equal(noToken.status, 403);
  t.match(noToken.text, /expired or was not sent from this site/);
  const guard = await formGuardOf(h, cookie);
  const crossSite = await page(h, 'POST', '/logout', { cookie, form: guard, headers: { origin: 'https://evil.example' } });
  t.equal(crossSite.status, 403);
  t.equal((await page(h, 'GET', '/', { cookie })).status, 200, 'the session still stands');
});

t.test('logging out ends the session', async (t) => {
  const cookie = await signInOverHttp(h, await newOwner());
  const out = await page(h, 'POST', '/logout', { cookie, form: await formGuardOf(h, cookie) });
  t.equal(out.status, 303);
  t.equal(out.headers.get('location'), '/wp-login.php?loggedout=true');
  t.equal((await page(h, 'GET', '/', { cookie })).status, 302, 'the old cookie leads to sign-in');
});

t.test('a user with a one-time password must choose its own before any other page', async (t) => {
  const account = await h.account();
  const made = await createIdentity(h.rt).users.create(account.id, { email: `first.${process.pid}@example.com`, role: 'owner' }, createLogger('test', 'silent'));
  if (!made.ok) throw new Error('user not made');
  const cookie = await signInOverHttp(h, made.value.user.email, made.value.oneTimePassword);
  const home = await page(h, 'GET', '/', { cookie });
  t.equal(home.status, 302);
  t.equal(home.headers.get('location'), '/change-password');
  const guard = await formGuardOf(h, cookie, '/change-password');
  const short = await page(h, 'POST', '/change-password', { cookie, form: { ...guard, current_password: made.value.oneTimePassword, new_password: 'short' } });
  t.equal(short.status, 400);
  t.match(short.text, /role="alert"/, 'the form again, with why');
  const changed = await page(h, 'POST', '/change-password', { cookie, form: { ...guard, current_password: made.value.oneTimePassword, new_password: PASSWORD } });
  t.equal(changed.status, 303);
  const after = await page(h, 'GET', '/?done=password_changed', { cookie });
  t.equal(after.status, 200, 'the same session goes on');
  t.match(after.text, /Your password is changed/);
});

t.test('a suspended team shows why on every page, the reason as text', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'viewer'));
  await h.rt.store.teams.changeStatus(account.id, 'suspended', 'platform', { reason: 'bounces <script>alert(1)</script>' });
  const shown = await page(h, 'GET', '/', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<strong>This team is suspended:<\/strong> bounces &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  t.notMatch(shown.text, /<script>alert/);
});
