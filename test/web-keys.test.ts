// The keys page (issue 13): sending and admin keys listed masked, a sending key created on the page and used to
// send over SMTP, an admin key with its scopes, each value shown once, revoking with a confirmation; a viewer
// sees no form and its forged posts are refused; another account's key is missing; names render as text;
// bad input is said on the page. Over real HTTP, with the MTA running, and in Chromium with axe-core.
import t from 'tap';
import nodemailer from 'nodemailer';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';

let w: MailWorld;
let browser: TestBrowser;

t.before(async () => {
  w = await startMailWorld();
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await w?.close();
});

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';

/** A signed-in user of `role` on the world's account (which has a verified domain); its cookie. */
const signedIn = async (role: 'owner' | 'admin' | 'viewer', accountId = w.accountId) => signInOverHttp(w.h, await userOn(w.h, accountId, role));

async function post(cookie: string, path: string, form: Record<string, string | string[]>) {
  const guard = await formGuardOf(w.h, cookie, '/keys');
  const body = new URLSearchParams(guard);
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
  const res = await fetch(w.h.url + path, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: w.h.url },
    body: body.toString(),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A key created through its form: answered 303, then the page it leads to, where the value is shown once. */
async function create(cookie: string, path: string, form: Record<string, string | string[]>) {
  const posted = await post(cookie, path, form);
  if (posted.status !== 303) return { ...posted, posted };
  return { ...(await page(w.h, 'GET', posted.headers.get('location') ?? '', { cookie })), posted };
}

const shownKey = (text: string): string | undefined => /<kbd class="secret" id="new-key">([^<]+)<\/kbd>/.exec(text)?.[1];
const sendingTitles = async () => (await w.h.rt.store.keys.listSending(w.accountId, { page: 1, perPage: 100 })).rows.map((k) => k.title);

t.test('an owner creates a sending key on the page, sees it once, and sends with it over SMTP (250)', async (t) => {
  const cookie = await signedIn('owner');
  const shown = await page(w.h, 'GET', '/keys', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>Keys<\/h1>/);
  t.match(shown.text, /Create sending key/);
  t.match(shown.text, /Create admin key/, 'the owner on the main account gets the admin key card');
  t.match(shown.text, new RegExp(`<option value="[^"]+">${w.domain}</option>`), 'the domains of the team can limit the key');

  const created = await create(cookie, '/keys', { name: 'Web shop', domain: '' });
  t.equal(created.posted.status, 303, 'the form is answered with a redirect (a reload posts nothing)');
  t.equal(created.posted.headers.get('location'), '/keys?done=created');
  t.notOk(created.posted.headers.get('location')?.includes('tern_'), 'the value is not in the URL');
  const value = shownKey(created.text);
  t.match(value, /^tern_[A-Za-z0-9_-]{20,}$/, 'the new value is shown');
  t.match(created.text, /not shown again/);
  t.match(created.text, /data-copy="new-key"/, 'with a copy button');
  t.match(created.text, /<th scope="row">Web shop<\/th>/, 'and listed');

  const again = await page(w.h, 'GET', '/keys', { cookie });
  t.notOk(again.text.includes(value!), 'a reload shows the list without the value');
  t.match(again.text, /Web shop/);

  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: w.h.config.smtp.starttlsPorts[0]!,
    secure: false,
    requireTLS: true,
    auth: { user: 'web-shop', pass: value! },
    tls: { rejectUnauthorized: false },
  });
  const info = await transport.sendMail({ from: `shop@${w.domain}`, to: 'bob@dest.test', subject: 'From the page', text: 'Hello' });
  t.match(info.response, /^250 /, 'the message is accepted');
});

t.test("a new key's value waits for its page sealed in Redis, never in the clear", async (t) => {
  const cookie = await signedIn('owner');
  const posted = await post(cookie, '/keys', { name: 'Sealed', domain: '' });
  t.equal(posted.status, 303);
  const [flashKey, ...more] = await w.h.rt.redis.keys('*flash*');
  t.ok(flashKey, 'the value waits in Redis for the page');
  t.same(more, [], 'once');
  const stored = (await w.h.rt.redis.get(flashKey!))!;
  const shown = shownKey((await page(w.h, 'GET', posted.headers.get('location') ?? '', { cookie })).text);
  t.match(shown, /^tern_/, 'the page shows the value');
  t.notOk(stored.includes(shown!), 'what Redis held does not contain it');
  t.notOk(stored.includes('Sealed'), 'nor its name');
});

t.test('a sending key limited to a domain says so in the list', async (t) => {
  const cookie = await signedIn('owner');
  const domains = (await w.h.rt.store.domains.list(w.accountId, { page: 1, perPage: 10 })).rows;
  const created = await create(cookie, '/keys', { name: 'Limited', domain: domains[0]!.id });
  t.equal(created.posted.status, 303);
  t.match(created.text, new RegExp(`Limited</th>\\s*<td><code>tern_[^<]+</code></td>\\s*<td>${w.domain}</td>`));
});

t.test('an owner creates an admin key with the scopes ticked; it works within them', async (t) => {
  const cookie = await signedIn('owner');
  const created = await create(cookie, '/keys/admin', { name: 'Deploy', scopes: ['domains:read', 'webhooks:write'] });
  t.equal(created.posted.status, 303);
  const value = shownKey(created.text);
  t.match(value, /^tern_admin_/);
  t.match(created.text, /Deploy<\/th>[\s\S]*?domains:read, webhooks:write/, 'listed with its scopes');
  t.equal((await w.h.request('GET', '/v2/domains', { key: value })).status, 200, 'a scope granted');
  t.equal((await w.h.request('GET', '/v2/api-keys', { key: value })).status, 403, 'a scope not granted');
  const stored = (await w.h.rt.store.keys.listAdmin(w.accountId)).find((k) => k.title === 'Deploy');
  t.same(stored?.scopes, ['domains:read', 'webhooks:write'], 'stored with exactly those scopes');
});

t.test('revoking asks first, then the key stops working', async (t) => {
  const cookie = await signedIn('owner');
  const value = shownKey((await create(cookie, '/keys', { name: 'Short-lived' })).text)!;
  const listed = await page(w.h, 'GET', '/keys', { cookie });
  const action = new RegExp(`<form method="post" action="(/keys/(sk_[0-9a-z]+)/revoke)" class="inline" data-confirm="Revoke the key “Short-lived”\\?`).exec(listed.text);
  t.ok(action, 'the revoke form asks before it is sent');
  const revoked = await post(cookie, action![1]!, {});
  t.equal(revoked.status, 303);
  t.equal(revoked.headers.get('location'), '/keys?done=revoked');
  t.match((await page(w.h, 'GET', '/keys?done=revoked', { cookie })).text, /The key is revoked/);
  t.notOk((await sendingTitles()).includes('Short-lived'), 'it is gone from the list');
  t.equal(await w.h.rt.keyCache.resolve(value), undefined, 'the value no longer resolves: the key is refused');
});

t.test('a viewer sees the keys but no form, and its forged posts are refused and change nothing', async (t) => {
  const owner = await signedIn('owner');
  await post(owner, '/keys', { name: 'Kept' });
  const listed = await page(w.h, 'GET', '/keys', { cookie: owner });
  const revokePath = /action="(\/keys\/sk_[0-9a-z]+\/revoke)"/.exec(listed.text)![1]!;

  const viewer = await signedIn('viewer');
  const shown = await page(w.h, 'GET', '/keys', { cookie: viewer });
  t.equal(shown.status, 200);
  t.match(shown.text, /Kept/);
  t.notMatch(shown.text, /method="post" action="\/keys/, 'no create or revoke form');
  t.notMatch(shown.text, />Revoke</);
  const before = await sendingTitles();
  t.equal((await post(viewer, '/keys', { name: 'Forged' })).status, 403);
  t.equal((await post(viewer, '/keys/admin', { name: 'Forged', scopes: 'domains:write' })).status, 403);
  t.equal((await post(viewer, revokePath, {})).status, 403);
  t.same(await sendingTitles(), before, 'nothing changed');
});

t.test('an admin manages sending keys but not admin keys', async (t) => {
  const admin = await signedIn('admin');
  const shown = await page(w.h, 'GET', '/keys', { cookie: admin });
  t.match(shown.text, /Create sending key/);
  t.notMatch(shown.text, /Create admin key/);
  const forged = await post(admin, '/keys/admin', { name: 'Not mine', scopes: 'domains:read' });
  t.equal(forged.status, 403);
  t.notOk((await w.h.rt.store.keys.listAdmin(w.accountId)).some((k) => k.title === 'Not mine'));
});

t.test("another account's key id answers 404 and is not revoked", async (t) => {
  const other = await w.h.account();
  const otherOwner = await signedIn('owner', other.id);
  await post(otherOwner, '/keys', { name: 'Theirs' });
  const theirs = /action="(\/keys\/sk_[0-9a-z]+\/revoke)"/.exec((await page(w.h, 'GET', '/keys', { cookie: otherOwner })).text)![1]!;
  const cookie = await signedIn('owner');
  t.equal((await post(cookie, theirs, {})).status, 404);
  t.equal((await post(cookie, '/keys/nonsense/revoke', {})).status, 404);
  t.ok(
    (await w.h.rt.store.keys.listSending(other.id, { page: 1, perPage: 10 })).rows.some((k) => k.title === 'Theirs'),
    'their key lives on',
  );
});

t.test('bad input is said on the page with 400 and creates nothing', async (t) => {
  const cookie = await signedIn('owner');
  const before = await sendingTitles();
  const blank = await post(cookie, '/keys', { name: '   ' });
  t.equal(blank.status, 400);
  t.match(blank.text, /<p class="error" role="alert">Name must not be blank/);
  t.match(blank.text, /id="sending-name"[^>]*value=" {3}"/, 'what was typed is kept');
  const long = await post(cookie, '/keys', { name: 'x'.repeat(101) });
  t.equal(long.status, 400);
  t.match(long.text, /Name must have at most 100 characters/, 'the core’s rule, the REST route’s too');
  const noScope = await post(cookie, '/keys/admin', { name: 'No scope' });
  t.equal(noScope.status, 400);
  t.match(noScope.text, /Tick at least one scope/);
  const unknown = await post(cookie, '/keys/admin', { name: 'Odd scope', scopes: 'everything:write' });
  t.equal(unknown.status, 400);
  t.match(unknown.text, /Unknown scope/);
  const strange = await post(cookie, '/keys', { name: 'Elsewhere', domain: 'not-a-domain-of-ours' });
  t.equal(strange.status, 400, 'a domain that is not the team’s');
  t.match(strange.text, /Domain not found/);
  t.same(await sendingTitles(), before, 'nothing created');
  t.notOk((await w.h.rt.store.keys.listAdmin(w.accountId)).some((k) => k.title === 'No scope' || k.title === 'Odd scope'));
});

t.test('key names render as text', async (t) => {
  const cookie = await signedIn('owner');
  await post(cookie, '/keys', { name: SCRIPT });
  const created = await create(cookie, '/keys', { name: IMG });
  t.notOk(created.text.includes(SCRIPT) || created.text.includes('<img src=x'), 'no markup from a name');
  t.match(created.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  t.match(created.text, /&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
});

t.test('in Chromium: create a key through the form, copy button, no img injected, axe clean at desktop and 360 px', async (t) => {
  const email = await userOn(w.h, w.accountId, 'owner');
  const p = await signedInTab(browser, w.h.url, email, '/keys');
  await p.fill('#sending-name', IMG);
  await Promise.all([p.waitForLoadState('load'), p.click('#create-sending-key')]);
  await p.waitForSelector('#new-key');
  t.match(await p.textContent('#new-key'), /^tern_/, 'the value is on the page');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'no element from the name');
  t.same(await seriousViolations(p), [], 'no serious accessibility violation on the answer page');
  await p.goto(`${w.h.url}/keys`);
  t.equal(await p.locator('#new-key').count(), 0, 'not shown again');
  t.same(await seriousViolations(p), [], 'nor on the list');
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.close();
});
