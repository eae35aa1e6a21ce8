// The Domains pages (issue 13) over real HTTP, Redis, SQLite, a loopback DNS server and a Cloudflare double:
// adding one and several domains through the pages, a domain's records and "Check now" taking it to verified
// (in place under htmx, by redirect without), DMARC on demand, emailing the records, connecting Cloudflare and
// publishing there, deleting; a viewer sees no write form and its forged posts are refused; another account's
// domain is 404; user text is escaped; and in Chromium, the pages with no serious accessibility violation.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { startHarness } from './helpers/harness.js';
import { publishRecords, startDnsServer } from './helpers/dns-server.js';
import { startCloudflareDouble } from './helpers/cloudflare-double.js';
import { logIn, userOn, withSession } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';

const SYSTEM_DOMAIN = `system-${process.pid}.com`;
const dns = await startDnsServer();
const cloudflare = await startCloudflareDouble(dns);
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' },
  overrides: {
    verify: { intervalS: 3600, maxDraftAgeDays: 30, lockTtlS: 300, onDemand: { limit: 2, windowS: 60 } },
    dnsProviders: { cloudflare: { baseUrl: cloudflare.baseUrl, timeoutS: 5, retries: 0 } },
    systemMail: { from: `tern@${SYSTEM_DOMAIN}`, fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 },
  },
});
let browser: TestBrowser | undefined;
t.teardown(async () => {
  await browser?.close();
  await h.close();
  await cloudflare.close();
  await dns.close();
});

const XSS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'] as const;
let counter = 0;
const fresh = (base = 'webdom') => `${base}-${++counter}-${process.pid}.com`;

interface Shown {
  id: string;
  domain_name: string;
  verification_status: string;
  dns_records: { dkim: { name: string; content: string }; spf: Array<{ type: string; name: string; content: string; priority: string }> };
}

interface Owner {
  accountId: number;
  key: string;
  email: string;
  cookie: string;
  guard: Record<string, string>;
}

async function newOwner(): Promise<Owner> {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const cookie = await signInOverHttp(h, email);
  return { accountId: account.id, key: account.key, email, cookie, guard: await formGuardOf(h, cookie, '/domains') };
}

const post = (o: Pick<Owner, 'cookie' | 'guard'>, path: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  page(h, 'POST', path, { cookie: o.cookie, form: { ...o.guard, ...fields }, headers });

/** Adds a domain through the page; its id, from the redirect to its page. */
async function addThroughPage(o: Owner, name = fresh()): Promise<string> {
  const reply = await post(o, '/domains', { name });
  const id = /^\/domains\/([^?]+)\?done=added$/.exec(reply.headers.get('location') ?? '')?.[1];
  if (reply.status !== 303 || !id) throw new Error(`adding ${name}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return id;
}

const v2Domain = async (o: Owner, id: string) => h.request<{ data: Shown }>('GET', `/v2/domains/${id}`, { key: o.key });
const v2Total = async (o: Owner) => (await h.request<{ total: number }>('GET', '/v2/domains', { key: o.key })).body.total;

t.test('an owner adds a domain through the page, sees its records with copy buttons, and "Check now" verifies it once published', async (t) => {
  const o = await newOwner();
  const empty = await page(h, 'GET', '/domains', { cookie: o.cookie });
  t.equal(empty.status, 200);
  t.match(empty.text, /No domains yet — add one to start sending/);
  const name = fresh();
  const id = await addThroughPage(o, name);
  const d = (await v2Domain(o, id)).body.data;
  t.equal(d.domain_name, name, 'the domain exists, as /v2 shows it');

  const shown = await page(h, 'GET', `/domains/${id}?done=added`, { cookie: o.cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /class="notice" role="status">The domain is added/);
  t.ok(shown.text.includes(d.dns_records.dkim.content), 'the DKIM value is shown');
  t.match(shown.text, new RegExp(`<code id="record-0-name">${d.dns_records.dkim.name}\\.${name.replace(/\./g, '\\.')}</code>`));
  t.equal((shown.text.match(/data-copy="record-\d-(name|value)"/g) ?? []).length, 6, 'a copy button per name and per value');
  t.match(shown.text, /Not checked yet/);
  t.match(shown.text, /hx-post="\/domains\/[^"]+\/verify" hx-target="#checks"/, 'Check now replaces the checks block under htmx');

  const missing = await post(o, `/domains/${id}/verify`, {}, { 'HX-Request': 'true' });
  t.equal(missing.status, 200);
  t.match(missing.text, /^<section id="checks"/, 'a fragment, the block alone');
  t.match(missing.text, /Not every record is found yet/);
  t.match(missing.text, /Missing or different/);

  publishRecords(dns, d);
  const checked = await post(o, `/domains/${id}/verify`);
  t.equal(checked.status, 303, 'without htmx, a redirect');
  t.equal(checked.headers.get('location'), `/domains/${id}?done=checked#checks`);
  t.equal((await v2Domain(o, id)).body.data.verification_status, 'verified', '/v2 sees it verified');
  const after = await page(h, 'GET', `/domains/${id}?done=checked`, { cookie: o.cookie });
  t.match(after.text, /All records found/);
  t.equal((after.text.match(/status good">Found</g) ?? []).length, 3, 'each record found');

  const limited = await post(o, `/domains/${id}/verify`);
  t.equal(limited.status, 429, 'the checks on demand are limited per domain');
  t.match(limited.text, /role="alert">At most 2 DNS checks/);
  const limitedHtmx = await post(o, `/domains/${id}/verify`, {}, { 'HX-Request': 'true' });
  t.match(limitedHtmx.text, /^<section id="checks"[\s\S]*role="alert">At most 2 DNS checks/, 'under htmx, the block with the reason in it');

  const list = await page(h, 'GET', '/domains', { cookie: o.cookie });
  t.match(list.text, new RegExp(`<a href="/domains/${id}">${name.replace(/\./g, '\\.')}</a>`));
  t.match(list.text, /status good">Verified</);
  t.match(list.text, /<td>Default<\/td>/, 'the first domain is the default');
});

t.test('several domains at once: each name added or refused with why; bad input is refused and adds nothing', async (t) => {
  const o = await newOwner();
  const [a, b] = [fresh(), fresh()];
  const posted = await post(o, '/domains/bulk', { names: `${a}\r\n\r\nnot a domain\n ${b} \n${a}` });
  t.equal(posted.status, 303, 'answered with a redirect: a reload adds nothing twice');
  t.equal(posted.headers.get('location'), '/domains#bulk-results');
  const reply = await page(h, 'GET', '/domains', { cookie: o.cookie });
  t.match(reply.text, /Added 2 of 4/);
  t.match(reply.text, /not a domain[\s\S]*Refused[\s\S]*is not a valid public domain name/);
  t.match(reply.text, new RegExp(`${a.replace(/\./g, '\\.')}</th>\\s*<td><span class="status bad">Refused</span></td>\\s*<td>${a.replace(/\./g, '\\.')} already exists`));
  t.equal(await v2Total(o), 2, 'two were added');

  const bad = await post(o, '/domains', { name: 'not a domain' });
  t.equal(bad.status, 400);
  t.match(bad.text, /role="alert">&quot;not a domain&quot; is not a valid public domain name/);
  t.match(bad.text, /value="not a domain"/, 'the name is kept in the field');
  const taken = await post(o, '/domains', { name: a });
  t.equal(taken.status, 409);
  t.match(taken.text, /already exists/);
  const none = await post(o, '/domains/bulk', { names: '\n \n' });
  t.equal(none.status, 400);
  t.match(none.text, /Give 1 to 50 domain names/);
  const tooMany = await post(o, '/domains/bulk', { names: Array.from({ length: 51 }, () => fresh()).join('\n') });
  t.equal(tooMany.status, 400);
  const allRefused = await post(o, '/domains/bulk', { names: 'nope' });
  t.equal(allRefused.status, 400, 'none added is a 400');
  t.equal(await v2Total(o), 2, 'nothing more was added');
});

t.test('DMARC on demand: the status, the alignment and a suggested record; in place under htmx', async (t) => {
  const o = await newOwner();
  const name = fresh();
  const id = await addThroughPage(o, name);
  dns.set(`_dmarc.${name}`, [{ type: 'TXT', data: 'v=DMARC1; p=none; rua=mailto:reports@example.com' }]);
  const shown = await page(h, 'GET', `/domains/${id}/dmarc`, { cookie: o.cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>/, 'a whole page without htmx');
  t.match(shown.text, /Monitoring only \(p=none\)/);
  t.match(shown.text, /<code id="dmarc-record">v=DMARC1; p=quarantine/);
  const fragment = await page(h, 'GET', `/domains/${id}/dmarc`, { cookie: o.cookie, headers: { 'HX-Request': 'true' } });
  t.match(fragment.text, /^<section id="dmarc"/);
  t.match(fragment.text, /Tern’s mail passes DMARC once authenticated: yes/);
});

t.test('the records are emailed to an address through the page; a bad address is refused', async (t) => {
  const system = await newOwner();
  const sys = (await v2Domain(system, await addThroughPage(system, SYSTEM_DOMAIN))).body.data;
  publishRecords(dns, sys);
  t.equal((await post(system, `/domains/${sys.id}/verify`)).status, 303, 'the system sender’s domain is verified');

  const o = await newOwner();
  const id = await addThroughPage(o);
  const bad = await post(o, `/domains/${id}/send-records`, { email: 'not an address' });
  t.equal(bad.status, 400);
  t.match(bad.text, /role="alert">email must be an email address/);
  t.match(bad.text, /value="not an address"/, 'the address is kept');
  const sent = await post(o, `/domains/${id}/send-records`, { email: 'zone-admin@dest.test' });
  t.equal(sent.status, 303);
  t.equal(sent.headers.get('location'), `/domains/${id}?done=records_sent`);
  const log = await h.request('GET', '/v2/emails', { key: system.key });
  t.ok(log.text.includes('zone-admin@dest.test'), "the message is in the system sender's log");
});

t.test('Cloudflare through the page: a refused token stores nothing; connected, it publishes the records and the domain verifies', async (t) => {
  const o = await newOwner();
  const name = fresh('cfweb');
  const id = await addThroughPage(o, name);
  cloudflare.zone(name);
  const short = await post(o, `/domains/${id}/cloudflare`, { api_token: 'short' });
  t.equal(short.status, 400);
  t.match(short.text, /role="alert">api_token must be a Cloudflare API token/);
  const token = `cfweb${counter}`.padEnd(36, 'x') + '9876';
  const unknown = await post(o, `/domains/${id}/cloudflare`, { api_token: token });
  t.equal(unknown.status, 400, 'a token Cloudflare refuses');
  const cf = '/api/tern/v2/api-keys/verify-connect/cloudflare';
  const session = await logIn(h, o.email);
  t.match((await h.request('GET', cf, withSession(session))).body, { connected: false });

  cloudflare.token(token, { status: 'active' });
  const connected = await post(o, `/domains/${id}/cloudflare`, { api_token: token });
  t.equal(connected.status, 303);
  t.match((await h.request('GET', cf, withSession(session))).body, { connected: true, token_last4: '9876' });
  const shown = await page(h, 'GET', `/domains/${id}?done=cloudflare_connected`, { cookie: o.cookie });
  t.match(shown.text, /token ending in <code>9876<\/code>/);
  t.notOk(shown.text.includes(token), 'the token is never shown');

  const published = await post(o, `/domains/${id}/publish`);
  t.equal(published.headers.get('location'), `/domains/${id}?done=published`);
  const again = await post(o, `/domains/${id}/publish`);
  t.equal(again.headers.get('location'), `/domains/${id}?done=published_unchanged`);
  t.equal((await post(o, `/domains/${id}/verify`)).status, 303);
  t.equal((await v2Domain(o, id)).body.data.verification_status, 'verified', 'the records Cloudflare holds verify it');

  t.equal((await post(o, `/domains/${id}/cloudflare/disconnect`)).status, 303);
  t.match((await h.request('GET', cf, withSession(session))).body, { connected: false });
});

t.test('deleting a domain through the page removes it, after saying what deleting does', async (t) => {
  const o = await newOwner();
  const id = await addThroughPage(o);
  const shown = await page(h, 'GET', `/domains/${id}`, { cookie: o.cookie });
  t.match(shown.text, /data-confirm="Delete [^"]+\? Its mail stops and its sending keys are revoked/);
  t.match(shown.text, /Then remove these records from its zone/);
  const deleted = await post(o, `/domains/${id}/delete`);
  t.equal(deleted.status, 303);
  t.equal(deleted.headers.get('location'), '/domains?done=deleted');
  t.equal((await v2Domain(o, id)).status, 404);
  t.match((await page(h, 'GET', '/domains?done=deleted', { cookie: o.cookie })).text, /The domain is deleted/);
});

t.test('a viewer sees no write form, and its forged posts are refused 403 and change nothing', async (t) => {
  const o = await newOwner();
  const id = await addThroughPage(o);
  const viewer = await signInOverHttp(h, await userOn(h, o.accountId, 'viewer'));
  const list = await page(h, 'GET', '/domains', { cookie: viewer });
  t.equal(list.status, 200);
  t.notMatch(list.text, /action="\/domains(\/bulk)?"/, 'no add form');
  const shown = await page(h, 'GET', `/domains/${id}`, { cookie: viewer });
  t.equal(shown.status, 200);
  for (const action of ['send-records', 'cloudflare', 'publish', 'delete']) t.notMatch(shown.text, new RegExp(`/${action}"`), `no ${action} form`);
  t.match(shown.text, /id="check-now"/, 'checking is reading: a viewer may');
  const guard = await formGuardOf(h, viewer, `/domains/${id}`);
  const v = { cookie: viewer, guard };
  for (const [path, fields] of [
    ['/domains', { name: fresh() }],
    ['/domains/bulk', { names: fresh() }],
    [`/domains/${id}/delete`, {}],
    [`/domains/${id}/send-records`, { email: 'x@dest.test' }],
    [`/domains/${id}/cloudflare`, { api_token: 'x'.repeat(40) }],
  ] as const) {
    t.equal((await post(v, path, fields)).status, 403, `POST ${path}`);
  }
  t.equal(await v2Total(o), 1, 'nothing added, nothing deleted');
});

t.test("another account's domain is 404 on every page and action", async (t) => {
  const o = await newOwner();
  const other = await newOwner();
  const theirs = await addThroughPage(other);
  t.equal((await page(h, 'GET', `/domains/${theirs}`, { cookie: o.cookie })).status, 404);
  t.equal((await page(h, 'GET', `/domains/${theirs}/dmarc`, { cookie: o.cookie })).status, 404);
  for (const action of ['verify', 'delete', 'publish', 'send-records']) {
    t.equal((await post(o, `/domains/${theirs}/${action}`, { email: 'x@dest.test' })).status, 404, action);
  }
  t.equal((await v2Domain(other, theirs)).status, 200, 'still there');
});

t.test('names holding markup are shown as text', async (t) => {
  const o = await newOwner();
  const single = await post(o, '/domains', { name: XSS[1] });
  t.equal(single.status, 400);
  t.ok(single.text.includes('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"'), 'escaped in the field');
  t.notOk(single.text.includes('<img src=x'), 'never as markup');
  const bulk = await post(o, '/domains/bulk', { names: XSS.join('\n') });
  t.ok(bulk.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  t.notOk(bulk.text.includes('<script>alert(1)'));
  t.notOk(bulk.text.includes('<img src=x'));
});

async function signInInBrowser(email: string): Promise<Page> {
  browser ??= await startBrowser();
  return signedInTab(browser, h.url, email, '/domains');
}

async function accessible(t: Test, p: Page, what: string) {
  await p.setViewportSize({ width: 1280, height: 900 });
  t.same(await seriousViolations(p), [], `${what}: no serious accessibility violation`);
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, `${what}: nothing overflows at 360 px`);
  t.same(await seriousViolations(p), [], `${what}: nor at 360 px`);
  await p.setViewportSize({ width: 1280, height: 900 });
}

t.test('in Chromium: add a domain, publish its records, "Check now" shows it verified in place; accessible at both sizes', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signInInBrowser(email);
  const refused: string[] = [];
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  await p.click('summary >> text=Add several at once');
  await p.fill('#domain-names', XSS.join('\n'));
  await p.click('#add-domains');
  await p.waitForSelector('#bulk-results');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'the refused names are text, not markup');
  t.match(await p.textContent('#bulk-results'), /<script>alert\(1\)<\/script>/);
  await accessible(t, p, 'the Domains page');

  const name = fresh('browser');
  await p.fill('#domain-name', name);
  await Promise.all([p.waitForURL((u) => u.pathname.startsWith('/domains/')), p.click('#add-domain')]);
  t.equal(await p.textContent('h1'), name);
  const id = new URL(p.url()).pathname.split('/')[2]!;
  publishRecords(dns, (await h.request<{ data: Shown }>('GET', `/v2/domains/${id}`, { key: account.key })).body.data);
  await p.click('#check-now');
  await p.waitForSelector('#checks .status.good >> text=All records found');
  t.equal(new URL(p.url()).pathname, `/domains/${id}`, 'the page stayed: htmx replaced the block');
  t.equal(await p.locator('#checks .status.good', { hasText: /^Found$/ }).count(), 3);
  await accessible(t, p, 'the domain page');
  await p.click('#check-dmarc');
  await p.waitForSelector('#dmarc >> text=Suggested record');
  t.match(await p.textContent('#dmarc-record'), /^v=DMARC1; p=none/, 'no DMARC record: a monitoring one is suggested, in place');
  await accessible(t, p, 'the domain page with its DMARC report');
  t.same(refused, [], 'the browser refused nothing under the Content-Security-Policy');
  await p.close();
});
