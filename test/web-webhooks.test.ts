// The webhooks pages (issue 13): the list and the form registering a webhook (its secret shown once), one
// webhook's page (edit, pause and resume, delete after a question, its delivery log), and "Send a test event":
// a signed sample goes through the outbox and the MTA's dispatcher to a real HTTPS receiver on loopback, which
// checks the signature with its own Standard Webhooks verifier, and the attempt shows in the page's log. A
// viewer sees no form and its forged posts are refused; another account's webhook is missing; names and URLs
// render as text; bad input is said on the page. Over real HTTP, and in Chromium with axe-core.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { certificate, startReceiver, verifies, type Receiver } from './helpers/webhook-receiver.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { until } from './helpers/wait.js';

let w: MailWorld;
let receiver: Receiver;
let browser: TestBrowser;
const caDir = mkdtempSync(join(tmpdir(), 'tern-web-hook-ca-'));

t.before(async () => {
  const tls = await certificate();
  const caFile = join(caDir, 'ca.pem');
  writeFileSync(caFile, tls.cert);
  receiver = await startReceiver({ tls, hosts: ['127.0.0.1', '::1'] });
  w = await startMailWorld({ env: { TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true', TERNMAIL_WEBHOOK_CA_FILE: caFile } });
  w.dns.set('hooks.example.com', [{ type: 'A', data: '127.0.0.1' }]);
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await w?.close();
  await receiver?.close();
  rmSync(caDir, { recursive: true, force: true });
});

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const hookUrl = (path: string) => `https://hooks.example.com:${receiver.port}${path}`;

const signedIn = async (role: 'owner' | 'admin' | 'viewer', accountId = w.accountId) => signInOverHttp(w.h, await userOn(w.h, accountId, role));

async function post(cookie: string, path: string, form: Record<string, string | string[]>) {
  const body = new URLSearchParams(await formGuardOf(w.h, cookie, '/webhooks'));
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
  const res = await fetch(w.h.url + path, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: w.h.url },
    body: body.toString(),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const shownSecret = (text: string) => /<kbd class="secret" id="new-secret">([^<]+)<\/kbd>/.exec(text)?.[1];
const hooksOf = async (teamId = w.accountId) => (await w.h.rt.store.webhooks.list(teamId, { page: 1, perPage: 100 })).rows;

/** Registers a webhook through the page; its page's path and its secret. */
async function created(cookie: string, form: Record<string, string | string[]>): Promise<{ path: string; secret: string }> {
  const posted = await post(cookie, '/webhooks', { events: 'bounced', ...form });
  if (posted.status !== 303) throw new Error(`create: ${posted.status} ${posted.text.slice(0, 500)}`);
  // The secret waits for the page the form leads to (shown once there).
  const reply = await page(w.h, 'GET', posted.headers.get('location') ?? '', { cookie });
  const hook = (await hooksOf()).find((h) => h.url === form.url);
  const listed = await page(w.h, 'GET', '/webhooks', { cookie });
  const path = [...listed.text.matchAll(/<a href="(\/webhooks\/wh_[0-9a-z]+)">/g)].map((m) => m[1]!).find((p) => p.endsWith(`_${hook!.id.toString(36)}`));
  return { path: path!, secret: shownSecret(reply.text)! };
}

t.test('an owner adds a webhook on the page: the secret once, then the list shows it active', async (t) => {
  const cookie = await signedIn('owner');
  const empty = await page(w.h, 'GET', '/webhooks', { cookie });
  t.equal(empty.status, 200);
  t.match(empty.text, /No webhooks yet/);
  t.match(empty.text, /Add webhook/);
  const posted = await post(cookie, '/webhooks', { title: 'Shop events', url: hookUrl('/first'), events: ['bounced', 'complaint'] });
  t.equal(posted.status, 303, 'the form is answered with a redirect (a reload posts nothing)');
  t.equal(posted.headers.get('location'), '/webhooks?done=created', 'the secret is not in the URL');
  const reply = await page(w.h, 'GET', '/webhooks?done=created', { cookie });
  const secret = shownSecret(reply.text);
  t.match(secret, /^whsec_/, 'the secret is shown');
  t.match(reply.text, /data-copy="new-secret"/);
  const listed = await page(w.h, 'GET', '/webhooks', { cookie });
  t.notOk(listed.text.includes(secret!), 'never again');
  t.match(
    listed.text,
    /Shop events<\/a><\/th>\s*<td><code class="url">https:\/\/hooks\.example\.com:\d+\/first<\/code><\/td>\s*<td>bounced, complaint<\/td>\s*<td><span class="status good">Active<\/span>/,
  );
  const rest = await w.h.request('GET', '/v2/webhooks', { key: w.adminKey });
  t.ok(
    rest.body.data.some((h: { url: string }) => h.url === hookUrl('/first')),
    'the REST API sees it',
  );
});

t.test('"Send a test event" delivers a signed sample through the dispatcher, and the attempt shows in the log', async (t) => {
  const cookie = await signedIn('admin');
  const { path, secret } = await created(cookie, { title: 'Tested', url: hookUrl('/page-test') });
  const before = await page(w.h, 'GET', path, { cookie });
  t.match(before.text, /No delivery yet/);
  const sent = await post(cookie, `${path}/test`, {});
  t.equal(sent.status, 303);
  t.equal(sent.headers.get('location'), `${path}?done=test_sent`);
  const got = await until('the receiver to get the test event', () => Promise.resolve(receiver.to('/page-test')[0] ?? null));
  t.ok(verifies(secret, got.headers, got.body), 'signed with the webhook’s secret (Standard Webhooks)');
  const body = JSON.parse(got.body);
  t.match(body, { test: true, event: 'bounced', email: 'test@example.com', team_id: w.accountId, message_id: null });
  const log = await until('the attempt to be in the log', async () => {
    const shown = await page(w.h, 'GET', path, { cookie });
    return /Delivered/.test(shown.text) ? shown.text : null;
  });
  t.match(
    log,
    /<td>bounced<\/td>\s*<td><span class="status good">Delivered<\/span><\/td>\s*<td class="number">200<\/td>\s*<td class="number">\d+ ms<\/td>/,
    'status and latency shown',
  );
  const rest = await w.h.request('GET', '/v2/webhooks', { key: w.adminKey });
  t.equal(rest.status, 200);
});

t.test('edit, pause, resume and delete through the page', async (t) => {
  const cookie = await signedIn('owner');
  const { path } = await created(cookie, { title: 'Changing', url: hookUrl('/before') });
  const shown = await page(w.h, 'GET', path, { cookie });
  t.match(shown.text, /data-confirm="Delete this webhook\?/, 'delete asks first');
  const saved = await post(cookie, path, { title: 'Changed', url: hookUrl('/after'), events: 'complaint', include_message: '1' });
  t.equal(saved.status, 303);
  t.equal(saved.headers.get('location'), `${path}?done=updated`);
  let hook = (await hooksOf()).find((h) => h.title === 'Changed');
  t.match(hook, { url: hookUrl('/after'), events: ['complaint'], includeMessage: true, status: 'active' });
  t.match((await page(w.h, 'GET', `${path}?done=updated`, { cookie })).text, /The webhook is saved/);
  t.equal((await post(cookie, `${path}/pause`, {})).status, 303);
  hook = (await hooksOf()).find((h) => h.title === 'Changed');
  t.equal(hook?.status, 'inactive');
  t.match((await page(w.h, 'GET', path, { cookie })).text, /status pending">Paused/);
  t.equal((await post(cookie, `${path}/resume`, {})).status, 303);
  t.equal((await hooksOf()).find((h) => h.title === 'Changed')?.status, 'active');
  const deleted = await post(cookie, `${path}/delete`, {});
  t.equal(deleted.headers.get('location'), '/webhooks?done=deleted');
  t.notOk(
    (await hooksOf()).some((h) => h.title === 'Changed'),
    'gone',
  );
  t.equal((await page(w.h, 'GET', path, { cookie })).status, 404);
});

t.test('bad input is said on the page with 400 and changes nothing', async (t) => {
  const cookie = await signedIn('owner');
  const before = (await hooksOf()).length;
  const badUrl = await post(cookie, '/webhooks', { url: 'ftp://hooks.example.com/x', events: 'bounced' });
  t.equal(badUrl.status, 400);
  t.match(badUrl.text, /<p class="error" role="alert">Invalid webhook URL: the URL scheme must be https or http/);
  const noEvent = await post(cookie, '/webhooks', { url: hookUrl('/none'), events: [] });
  t.equal(noEvent.status, 400);
  t.match(noEvent.text, /Events to send must name at least one event/);
  t.equal((await hooksOf()).length, before, 'nothing created');
  const { path } = await created(cookie, { title: 'Stays', url: hookUrl('/stays') });
  const badEdit = await post(cookie, path, { url: 'http://hooks.example.com:9999/x', events: 'bounced' });
  t.equal(badEdit.status, 400);
  t.match(badEdit.text, /port 80, 443 or 8080/);
  t.equal((await hooksOf()).find((h) => h.title === 'Stays')?.url, hookUrl('/stays'), 'unchanged');
});

t.test('a viewer sees the webhooks and the log, no form, and its forged posts are refused', async (t) => {
  const owner = await signedIn('owner');
  const { path } = await created(owner, { title: 'Watched', url: hookUrl('/watched') });
  const viewer = await signedIn('viewer');
  const list = await page(w.h, 'GET', '/webhooks', { cookie: viewer });
  t.match(list.text, /Watched/);
  t.notMatch(list.text, /method="post" action="\/webhooks/, 'no create form');
  const one = await page(w.h, 'GET', path, { cookie: viewer });
  t.equal(one.status, 200);
  t.match(one.text, /Delivery log/);
  t.notMatch(one.text, /method="post" action="\/webhooks/, 'no edit, pause, test or delete form');
  const sentBefore = receiver.to('/watched').length;
  for (const [to, form] of [
    ['/webhooks', { url: hookUrl('/forged'), events: 'bounced' }],
    [path, { url: hookUrl('/forged'), events: 'bounced' }],
    [`${path}/pause`, {}],
    [`${path}/test`, {}],
    [`${path}/delete`, {}],
  ] as const) {
    t.equal((await post(viewer, to, form)).status, 403, `${to} refused`);
  }
  const hook = (await hooksOf()).find((h) => h.title === 'Watched');
  t.match(hook, { url: hookUrl('/watched'), status: 'active' }, 'nothing changed');
  t.notOk((await hooksOf()).some((h) => h.url === hookUrl('/forged')));
  t.equal(receiver.to('/watched').length, sentBefore, 'no test event sent');
});

t.test("another account's webhook answers 404 on every page and action", async (t) => {
  const other = await w.h.account();
  const theirs = await w.h.request('POST', '/v2/webhooks', { key: other.key, body: { url: hookUrl('/theirs'), events: ['bounced'] } });
  const otherOwner = await signedIn('owner', other.id);
  const listed = await page(w.h, 'GET', '/webhooks', { cookie: otherOwner });
  const path = /<a href="(\/webhooks\/wh_[0-9a-z]+)">/.exec(listed.text)?.[1];
  t.ok(path, `their webhook is listed to them (${theirs.status})`);
  const cookie = await signedIn('owner');
  t.equal((await page(w.h, 'GET', path!, { cookie })).status, 404);
  t.equal((await page(w.h, 'GET', '/webhooks/nonsense', { cookie })).status, 404);
  for (const action of ['', '/pause', '/test', '/delete'])
    t.equal((await post(cookie, `${path}${action}`, { url: hookUrl('/mine'), events: 'bounced' })).status, 404, `${action || 'edit'}`);
  t.match((await hooksOf(other.id))[0], { url: hookUrl('/theirs'), status: 'active' }, 'theirs is untouched');
});

t.test('names and URLs render as text', async (t) => {
  const cookie = await signedIn('owner');
  const { path } = await created(cookie, { title: SCRIPT, url: hookUrl(`/x?q=${encodeURIComponent(IMG)}`) });
  await created(cookie, { title: IMG, url: hookUrl('/img') });
  for (const p of ['/webhooks', path]) {
    const text = (await page(w.h, 'GET', p, { cookie })).text;
    t.notOk(text.includes(SCRIPT) || text.includes('<img src=x'), `no markup from a name on ${p}`);
    t.match(text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  }
  t.match((await page(w.h, 'GET', '/webhooks', { cookie })).text, /&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
});

t.test('in Chromium: add a webhook, open it, send a test event; axe clean at desktop and 360 px', async (t) => {
  const email = await userOn(w.h, w.accountId, 'owner');
  const p = await signedInTab(browser, w.h.url, email, '/webhooks');
  await p.fill('#new-title', IMG);
  await p.fill('#new-url', hookUrl('/browser'));
  await Promise.all([p.waitForLoadState('load'), p.click('#create-webhook')]);
  await p.waitForSelector('#new-secret');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'no element from the name');
  t.same(await seriousViolations(p), [], 'the answer page');
  await p.goto(`${w.h.url}/webhooks`);
  t.same(await seriousViolations(p), [], 'the list');
  await p.click('tr:has-text("/browser") a');
  await p.waitForSelector('#send-test-event');
  await Promise.all([p.waitForURL((u) => u.search.includes('done=test_sent')), p.click('#send-test-event')]);
  await until('the browser test event to arrive', () => Promise.resolve(receiver.to('/browser')[0] ?? null));
  await until('the attempt to show', async () => {
    await p.reload();
    return (await p.locator('#deliveries .status.good').count()) > 0 ? true : null;
  });
  t.same(await seriousViolations(p), [], 'the webhook’s page with its log');
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.goto(`${w.h.url}/webhooks`);
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'the list neither');
  t.same(await seriousViolations(p), [], 'the list at 360 px');
  await p.close();
});
