// Issue 13, Must show 1 and 2: a real `ternmail start` (its managed Redis, its MTA and API) on loopback, a DNS
// server the test publishes records in, an MX sink the MTA delivers to, and Chromium driving the dashboard the way
// a new owner would: sign in with the printed one-time password, choose a password, look at the overview. Every
// page visited is checked with axe-core and for overflow at 360 px, and screenshotted (desktop and 360 px, light and
// dark) when TERN_SCREENSHOTS_DIR is set: the account pages, the team and statistics, and the operator's pages.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { Page } from 'playwright-core';
import { publishRecords, startDnsServer, type ShownRecords, type TestDnsServer } from './helpers/dns-server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { freePort } from './helpers/redis.js';
import { cleanEnv, http, processesMentioning, spawnTernmail, tempHome, waitForApi, type LongRunning } from './helpers/cli.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { screenshots } from './helpers/screenshots.js';
import { certificate, startReceiver, verifies, type Receiver } from './helpers/webhook-receiver.js';
import { eventually, runCli } from './helpers/cli.js';

const KEY_LINE = /Admin key:\s+(tern_admin_[A-Za-z0-9_-]+)/;
const OWNER_LINES = /Dashboard:\s+(\S+)\n\s+Login:\s+(\S+)\n\s+Password:\s+(\S+)\n/;
const NEW_PASSWORD = 'a long password of our own';
const DOMAIN = 'tern-journey.com';
const GONE = 'gone@dest.test';
const SUBJECT = 'Your order 4711 <script>alert(1)</script>';

let dns: TestDnsServer;
let sink: Sink;
let browser: TestBrowser;
let tern: LongRunning;
let base = '';
let owner = { email: '', oneTime: '' };
let adminKey = '';
let page: Page;
let receiver: Receiver;
let env: NodeJS.ProcessEnv = {};
let submissionPort = 0;
const home = tempHome('tern-journey-');
const dataDir = join(home.dir, 'data');

t.before(async () => {
  const tlsPair = await certificate();
  writeFileSync(join(home.dir, 'hooks-ca.pem'), tlsPair.cert);
  [dns, sink, receiver] = await Promise.all([startDnsServer(), startSink(), startReceiver({ tls: tlsPair, hosts: ['127.0.0.1', '::1'] })]);
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  dns.set('hooks.example.com', [{ type: 'A', data: '127.0.0.1' }]);
  sink.rcptReply = (address) => (address === GONE ? { code: 550, message: `5.1.1 <${address}>: Recipient address rejected: User unknown` } : null);
  const [api, starttls, tls, mx, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  submissionPort = starttls;
  env = cleanEnv({
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_CONFIG: home.configFile,
    TERNMAIL_API_PORT: String(api),
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttls),
    TERNMAIL_SMTP_TLS_PORTS: String(tls),
    TERNMAIL_MX_PORT: String(mx),
    TERNMAIL_METRICS_PORT: String(metrics),
    TERNMAIL_DNS_SERVERS: dns.address,
    TERNMAIL_REMOTE_SMTP_PORT: String(sink.port),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true',
    TERNMAIL_WEBHOOK_CA_FILE: join(home.dir, 'hooks-ca.pem'),
  });
  tern = spawnTernmail(['start'], env);
  const out = await tern.waitForOutput((o) => OWNER_LINES.test(o) && KEY_LINE.test(o), 90_000);
  adminKey = KEY_LINE.exec(out)![1]!;
  const [, , email, password] = OWNER_LINES.exec(out)!;
  owner = { email: email!, oneTime: password! };
  base = `http://127.0.0.1:${api}`;
  await waitForApi(base, tern, 60_000);
  browser = await startBrowser();
});

t.teardown(async () => {
  await page?.close();
  await browser?.close();
  if (tern && !tern.exited()) await tern.stop('SIGTERM', 20_000).catch(() => tern.stop('SIGKILL'));
  for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
  await Promise.all([dns?.close(), sink?.close(), receiver?.close()]);
  rmSync(home.dir, { recursive: true, force: true });
});

/** The page passes axe-core at both sizes and is screenshotted as `name`. */
async function checkPage(t: Test, p: Page, name: string): Promise<void> {
  await p.setViewportSize({ width: 1280, height: 800 });
  t.same(await seriousViolations(p), [], `${name}: no serious accessibility violation on a desktop`);
  await p.setViewportSize({ width: 360, height: 740 });
  t.same(await seriousViolations(p), [], `${name}: nor at 360 px`);
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, `${name}: nothing overflows at 360 px`);
  await screenshots(p, name);
}

t.test('a new owner signs in with the printed password, chooses its own, and lands on the overview', async (t) => {
  const p = await browser.context.newPage();
  await p.goto(`${base}/`);
  t.equal(new URL(p.url()).pathname, '/wp-login.php', 'the dashboard asks to sign in');
  await checkPage(t, p, 'sign-in');
  await p.fill('#email', owner.email);
  await p.fill('#password', owner.oneTime);
  await Promise.all([p.waitForURL((u) => u.pathname === '/change-password'), p.click('#sign-in')]);
  t.pass('a one-time password leads to choosing one');
  await p.fill('#current_password', owner.oneTime);
  await p.fill('#new_password', NEW_PASSWORD);
  await Promise.all([p.waitForURL((u) => u.pathname === '/'), p.click('#change-password')]);
  t.equal(await p.textContent('h1'), 'Overview');
  t.match(await p.textContent('.notice'), /password is changed/);
  await p.waitForSelector('figure.chart canvas');
  await checkPage(t, p, 'overview');
  page = p;
});

/** What whoever runs the domain's zone does with the records the dashboard showed: publishes them. */
async function publishRecordsOf(domainId: string): Promise<void> {
  publishRecords(dns, (await http(base, 'GET', `/v2/domains/${domainId}`, { key: adminKey })).body.data as ShownRecords);
}

t.test('the owner adds a domain, publishes its records, and sees it verified with Check now', async (t) => {
  const p = page;
  await p.click('nav.sections a[href="/domains"]');
  await p.waitForSelector('#domain-name');
  await checkPage(t, p, 'domains-empty');
  await p.fill('#domain-name', DOMAIN);
  await p.click('#add-domain');
  await p.waitForLoadState();
  t.equal(await p.textContent('h1'), DOMAIN, (await p.textContent('main')) ?? '');
  await publishRecordsOf(new URL(p.url()).pathname.split('/')[2]!);
  await p.click('#check-now');
  await p.waitForSelector('#checks .status.good >> text=All records found');
  t.pass('the live check finds every record and the domain is verified');
  await checkPage(t, p, 'domain');
  await p.goto(`${base}/domains`);
  t.match(await p.textContent('main table'), /Verified/);
  await checkPage(t, p, 'domains');
});

let sendingKey = '';

t.test('the owner creates a sending key (shown once) and a webhook, and its test event is delivered, signed, and logged', async (t) => {
  const p = page;
  await p.goto(`${base}/keys`);
  await p.fill('#sending-name', 'Web shop');
  await Promise.all([p.waitForLoadState('load'), p.click('#create-sending-key')]);
  sendingKey = ((await p.textContent('#new-key')) ?? '').trim();
  t.match(sendingKey, /^tern_/, 'the new key is shown');
  await checkPage(t, p, 'keys');
  await p.goto(`${base}/keys`);
  t.notOk((await p.content()).includes(sendingKey), 'and never again');

  await p.goto(`${base}/webhooks`);
  await p.fill('#new-title', 'Shop events');
  await p.fill('#new-url', `https://hooks.example.com:${receiver.port}/journey`);
  await Promise.all([p.waitForLoadState('load'), p.click('#create-webhook')]);
  const secret = ((await p.textContent('#new-secret')) ?? '').trim();
  t.ok(secret, 'the secret is shown once');
  await p.goto(`${base}/webhooks`);
  await p.click('tr:has-text("/journey") a');
  await Promise.all([p.waitForURL((u) => u.search.includes('done=test_sent')), p.click('#send-test-event')]);
  const got = await eventually(() => receiver.to('/journey')[0], 30_000, 'the test event');
  t.ok(verifies(secret, got.headers, got.body), 'signed with the secret the page showed');
  await eventually(
    async () => {
      await p.reload();
      return (await p.locator('#deliveries .status.good').count()) > 0 ? true : undefined;
    },
    30_000,
    'the delivery in the log',
  );
  await checkPage(t, p, 'webhook');
});

t.test('mail sent over SMTP with the key is found in the logs, with its delivery attempt and the hard bounce', async (t) => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: submissionPort,
    secure: false,
    requireTLS: true,
    auth: { user: 'web-shop', pass: sendingKey },
    tls: { rejectUnauthorized: false },
  });
  const info = await transport.sendMail({ from: `shop@${DOMAIN}`, to: ['ok@dest.test', GONE], subject: SUBJECT, text: 'Thanks' });
  t.match(info.response, /^250 /, 'accepted over SMTP');
  await sink.waitFor(1, 60_000);

  const p = page;
  await p.goto(`${base}/logs`);
  await p.fill('#search', '4711');
  await Promise.all([p.waitForURL((u) => u.searchParams.get('search') === '4711'), p.click('#apply-filters')]);
  await checkPage(t, p, 'logs');
  await Promise.all([p.waitForURL((u) => /^\/logs\/[^/]+$/.test(u.pathname)), p.click('main table a[href^="/logs/"]')]);
  t.equal(await p.textContent('h1'), SUBJECT, 'the subject as the heading, as text');
  t.equal(await p.locator('main script').count(), 0, 'nothing injected');
  await eventually(
    async () => {
      await p.reload();
      return /Recipient address rejected/.test((await p.textContent('main')) ?? '') ? true : undefined;
    },
    60_000,
    'the refused attempt',
  );
  t.match(await p.textContent('main'), /mx\.dest\.test/, 'the remote MX of the attempt');
  t.match(await p.textContent('main'), /250/, 'and the accepted attempt’s reply');
  await checkPage(t, p, 'message');
});

t.test('the hard-bounced address is in the suppressions, exported as CSV, and removed', async (t) => {
  const p = page;
  await eventually(
    async () => {
      await p.goto(`${base}/suppressions`);
      return ((await p.textContent('main')) ?? '').includes(GONE) ? true : undefined;
    },
    30_000,
    'the suppression',
  );
  await checkPage(t, p, 'suppressions');
  const href = await p.getAttribute('a[href^="/suppressions/export"]', 'href');
  const csv = await p.request.get(`${base}${href}`);
  t.equal(csv.status(), 200);
  t.match(csv.headers()['content-type'], /^text\/csv/);
  const rows = (await csv.text()).trim().split(/\r?\n/);
  t.match(rows[0], /email/, 'a header row');
  t.ok(
    rows.slice(1).some((r) => r.includes(GONE)),
    'the bounced address is a row',
  );
  p.once('dialog', (d) => void d.accept());
  const remove = p.locator('tr', { has: p.locator('th', { hasText: GONE }) }).locator('button', { hasText: 'Remove' });
  await Promise.all([p.waitForURL((u) => u.searchParams.get('done') === 'removed'), remove.click()]);
  t.match(await p.textContent('.notice'), /removed/, 'removed');
  t.equal(await p.locator('main th', { hasText: GONE }).count(), 0, 'and no longer listed');
});

/** A form post as a browser sends it, with the page's CSRF token, without following redirects. */
async function post(cookie: string, path: string, form: Record<string, string>) {
  const res = await fetch(base + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, text: await res.text() };
}

async function guardOf(cookie: string, path: string): Promise<Record<string, string>> {
  const text = await (await fetch(base + path, { headers: { cookie } })).text();
  return { _wpnonce: /name="_wpnonce" value="([0-9a-f]{10})"/.exec(text)?.[1] ?? '', _team: /name="_team" value="(\d+)"/.exec(text)?.[1] ?? '' };
}

t.test('a viewer sees no write buttons and its forged write is refused; another account’s domain is 404', async (t) => {
  const made = await runCli(['user', 'create', '--account', '1', '--email', 'viewer@tern-journey.com', '--role', 'viewer'], env);
  const oneTime = (made.json as { one_time_password: string }).one_time_password;
  const cookie = (await post('', '/wp-login.php', { email: 'viewer@tern-journey.com', password: oneTime })).cookie;
  const changed = await post(cookie, '/change-password', { ...(await guardOf(cookie, '/change-password')), current_password: oneTime, new_password: NEW_PASSWORD });
  t.equal(changed.status, 303);
  const domains = await (await fetch(`${base}/domains`, { headers: { cookie } })).text();
  t.notMatch(domains, /id="add-domain"/, 'no add button for a viewer');
  const guard = await guardOf(cookie, '/');
  const forged = await post(cookie, '/domains', { ...guard, _team: '1', name: 'forged-by-viewer.com' });
  t.equal(forged.status, 403, 'the server refuses the forged write');
  t.notMatch(await (await fetch(`${base}/domains`, { headers: { cookie } })).text(), /forged-by-viewer/, 'and nothing was added');

  const other = await runCli(['account', 'create', '--name', 'Other', '--credits', '10'], env);
  const otherKey = await runCli(['admin-key', 'create', '--account', String((other.json as { id: number }).id), '--title', 't', '--scopes', 'all'], env);
  const created = await http(base, 'POST', '/v2/domains', { key: (otherKey.json as { key: string }).key, body: { name: 'other-account.com' } });
  const otherDomain = (created.body as { data: { id: string } }).data.id;
  const ownerCookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  t.equal((await fetch(`${base}/domains/${otherDomain}`, { headers: { cookie: ownerCookie } })).status, 404, 'another account’s domain page is 404');
});

t.test('the owner’s team and statistics pages', async (t) => {
  const p = page;
  for (const [path, name] of [
    ['/team', 'team'],
    ['/statistics', 'statistics'],
  ] as const) {
    await p.goto(`${base}${path}`);
    await p.waitForLoadState('networkidle');
    await checkPage(t, p, name);
  }
});

t.test('an operator signs in and grants credits; the platform, teams, a team, credits and the audit log', async (t) => {
  const made = await runCli(['operator', 'create', '--email', 'ops@tern-journey.com', '--name', 'Platform Ops'], env);
  const oneTime = (made.json as { one_time_password: string }).one_time_password;
  const p = await browser.context.newPage();
  await p.context().clearCookies();
  await p.goto(`${base}/admin`);
  await p.fill('#email', 'ops@tern-journey.com');
  await p.fill('#password', oneTime);
  await Promise.all([p.waitForURL((u) => u.pathname === '/change-password'), p.click('#sign-in')]);
  await p.fill('#current_password', oneTime);
  await p.fill('#new_password', NEW_PASSWORD);
  await Promise.all([p.waitForURL((u) => u.pathname !== '/change-password'), p.click('#change-password')]);
  await p.goto(`${base}/admin/credits`);
  await p.fill('#grant-account', '1');
  await p.fill('#grant-amount', '500');
  await p.fill('#grant-reason', 'Welcome credits for the launch');
  p.once('dialog', (d) => void d.accept());
  await Promise.all([p.waitForURL((u) => u.searchParams.get('done') === 'granted'), p.click('#grant')]);
  for (const [path, name] of [
    ['/admin', 'admin-platform'],
    ['/admin/tenants', 'admin-tenants'],
    ['/admin/tenants/1', 'admin-tenant'],
    ['/admin/credits', 'admin-credits'],
    ['/admin/audit-log', 'admin-audit-log'],
  ] as const) {
    await p.goto(`${base}${path}`);
    await p.waitForLoadState('networkidle');
    await checkPage(t, p, name);
  }
  t.match(await p.textContent('main table'), /balance: \d+ → \d+/, 'the audit log shows the change, old → new');
  await p.close();
});
