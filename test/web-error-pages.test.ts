// Errors as a browser and as a program read them (issue 22, item 12): a page that does not exist, a page the
// role does not open and a failure on our side are pages in the dashboard's layout with a way back for a
// browser, while /v2, /api and a request asking for application/json keep their JSON; and the dashboard's
// favicon, an SVG served like the other hashed assets. Over real HTTP, and in Chromium.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { page, signInOverHttp, signedInTab } from './helpers/web-pages.js';

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

/** What Chromium sends when a person follows a link. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };
const JSON_ONLY = { accept: 'application/json' };

const typeOf = (r: { headers: Headers }) => r.headers.get('content-type') ?? '';

t.test('a page that does not exist is a 404 page with a way back for a browser, and JSON for a program and under /v2 and /api', async (t) => {
  const html = await page(h, 'GET', '/no-such-page', { headers: BROWSER });
  t.equal(html.status, 404);
  t.match(typeOf(html), /^text\/html; charset=utf-8/);
  t.match(html.text, /<h1>Page not found<\/h1>/);
  t.match(html.text, /<a class="button" href="\/">Back to the dashboard<\/a>/, 'a way back');

  const asJson = await page(h, 'GET', '/no-such-page', { headers: JSON_ONLY });
  t.equal(asJson.status, 404);
  t.match(typeOf(asJson), /^application\/json/);
  t.equal(JSON.parse(asJson.text).errors.code, 'route_not_found', 'the JSON it always was');
  const noAccept = await fetch(`${h.url}/no-such-page`, { headers: { accept: '*/*' } });
  t.match(noAccept.headers.get('content-type'), /^application\/json/, 'a program that takes anything keeps the JSON');

  const v2 = await page(h, 'GET', '/v2/no-such-route', { headers: BROWSER });
  t.equal(v2.status, 404);
  t.match(typeOf(v2), /^application\/json/, '/v2 answers JSON even to a browser');
  const api = await page(h, 'GET', '/api/no-such-route', { headers: BROWSER });
  t.equal(api.status, 404);
  t.match(typeOf(api), /^application\/json/, '/api answers JSON even to a browser');
});

t.test('signed in, a missing page and a page the role does not open are shown in the dashboard’s frame; JSON when asked for', async (t) => {
  const account = await h.account();
  const viewer = await signInOverHttp(h, await userOn(h, account.id, 'viewer'));
  const missing = await page(h, 'GET', '/no-such-page', { cookie: viewer, headers: BROWSER });
  t.equal(missing.status, 404);
  t.match(missing.text, /<nav class="sections"/, 'in the frame, the sections beside');
  t.match(missing.text, /Back to the dashboard/);

  const gone = await page(h, 'GET', '/webhooks/wh_zzzzzzzz', { cookie: viewer, headers: BROWSER });
  t.equal(gone.status, 404);
  t.match(typeOf(gone), /^text\/html/);
  t.match(gone.text, /<nav class="sections"/);

  const forbidden = await page(h, 'GET', '/billing', { cookie: viewer, headers: BROWSER });
  t.equal(forbidden.status, 403);
  t.match(typeOf(forbidden), /^text\/html/);
  t.match(forbidden.text, /<nav class="sections"/, 'a 403 in the frame too');
  t.match(forbidden.text, /Your role on this team does not allow this\.[\s\S]*Back to the dashboard/);

  const forbiddenJson = await page(h, 'GET', '/billing', { cookie: viewer, headers: JSON_ONLY });
  t.equal(forbiddenJson.status, 403);
  t.match(typeOf(forbiddenJson), /^application\/json/);
  t.same(JSON.parse(forbiddenJson.text), { code: 'forbidden', message: 'Your role on this team does not allow this.', data: { status: 403 } });
});

t.test('the favicon is an SVG linked from every layout and served like the other assets: its type, cached for good', async (t) => {
  const signIn = await page(h, 'GET', '/wp-login.php', { headers: BROWSER });
  const href = /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/favicon\.[0-9a-f]{12}\.svg)"/.exec(signIn.text)?.[1];
  t.ok(href, 'linked from the page before signing in');
  const account = await h.account();
  const owner = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  t.match((await page(h, 'GET', '/', { cookie: owner })).text, `<link rel="icon" type="image/svg+xml" href="${href}"`, 'and from the dashboard');
  const icon = await fetch(`${h.url}${href}`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/svg+xml');
  t.equal(icon.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.match(await icon.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
});

t.test('in Chromium: a stale link shows the 404 page in the frame, its way back leads to the dashboard, and the favicon loads', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signedInTab(browser, h.url, email, '/');
  const answer = await p.goto(`${h.url}/no-such-section/stale-link`);
  t.equal(answer?.status(), 404);
  t.equal(await p.textContent('main h1'), 'Page not found');
  t.equal(await p.locator('nav.sections').count(), 1, 'the sections are there');
  await Promise.all([p.waitForURL((u) => u.pathname === '/'), p.click('text=Back to the dashboard')]);
  t.equal(await p.textContent('main h1'), 'Overview');
  const icon = await p.evaluate(async () => {
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    const res = link ? await fetch(link.href) : undefined;
    return { type: res?.headers.get('content-type'), ok: res?.ok };
  });
  t.same(icon, { type: 'image/svg+xml', ok: true });
  await p.close();
});

t.test('a failure on our side is a 500 page with a way back for a browser and JSON for a program, without internals', async (t) => {
  const broken = await startHarness();
  t.teardown(() => broken.close().catch(() => undefined));
  const account = await broken.account();
  const cookie = await signInOverHttp(broken, await userOn(broken, account.id, 'owner'));
  // A real failure nobody planned for: the database goes away under the running API.
  await broken.rt.store.close();
  const html = await page(broken, 'GET', '/keys', { cookie, headers: BROWSER });
  t.equal(html.status, 500);
  t.match(typeOf(html), /^text\/html/);
  t.match(html.text, /Something went wrong on our side[\s\S]*Back to the dashboard/);
  t.notMatch(html.text, /SQLITE/, 'no internals');
  const asJson = await page(broken, 'GET', '/keys', { cookie, headers: JSON_ONLY });
  t.equal(asJson.status, 500);
  t.same(JSON.parse(asJson.text), { code: 'internal_error', message: 'Something went wrong on our side; it has been logged.', data: { status: 500 } });
});
