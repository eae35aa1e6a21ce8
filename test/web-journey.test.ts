// Issue 13, Must show 1 and 2: a real `ternmail start` (its managed Redis, its MTA and API) on loopback, a DNS
// server the test publishes records in, an MX sink the MTA delivers to, and Chromium driving the dashboard the way
// a new owner would: sign in with the printed one-time password, choose a password, look at the overview. Every
// page visited is checked with axe-core, and screenshotted (desktop and 360 px) when TERN_SCREENSHOTS_DIR is set.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { freePort } from './helpers/redis.js';
import { cleanEnv, http, processesMentioning, spawnTernmail, tempHome, waitForApi, type LongRunning } from './helpers/cli.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { screenshots } from './helpers/screenshots.js';

const KEY_LINE = /Admin key:\s+(tern_admin_[A-Za-z0-9_-]+)/;
const OWNER_LINES = /Dashboard:\s+(\S+)\n\s+Login:\s+(\S+)\n\s+Password:\s+(\S+)\n/;
const NEW_PASSWORD = 'a long password of our own';
const DOMAIN = 'tern-journey.com';

let dns: TestDnsServer;
let sink: Sink;
let browser: TestBrowser;
let tern: LongRunning;
let base = '';
let owner = { email: '', oneTime: '' };
let adminKey = '';
let page: Page;
const home = tempHome('tern-journey-');
const dataDir = join(home.dir, 'data');

t.before(async () => {
  [dns, sink] = await Promise.all([startDnsServer(), startSink()]);
  const [api, starttls, tls, mx, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const env = cleanEnv({
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
  await Promise.all([dns?.close(), sink?.close()]);
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

interface DnsRecords {
  domain_name: string;
  dns_records: { dkim: { name: string; content: string }; spf: Array<{ type: string; name: string; content: string; priority?: number }> };
}

/** What whoever runs the domain's zone does with the records the dashboard showed: publishes them. */
async function publishRecords(domainId: string): Promise<void> {
  const d = (await http(base, 'GET', `/v2/domains/${domainId}`, { key: adminKey })).body.data as DnsRecords;
  dns.set(`${d.dns_records.dkim.name}.${d.domain_name}`, [{ type: 'TXT', data: d.dns_records.dkim.content }]);
  for (const r of d.dns_records.spf) {
    dns.add(`${r.name}.${d.domain_name}`, r.type === 'MX' ? { type: 'MX', data: { preference: Number(r.priority), exchange: r.content } } : { type: 'TXT', data: r.content });
  }
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
  await publishRecords(new URL(p.url()).pathname.split('/')[2]!);
  await p.click('#check-now');
  await p.waitForSelector('#checks .status.good >> text=All records found');
  t.pass('the live check finds every record and the domain is verified');
  await checkPage(t, p, 'domain');
  await p.goto(`${base}/domains`);
  t.match(await p.textContent('main table'), /Verified/);
  await checkPage(t, p, 'domains');
});
