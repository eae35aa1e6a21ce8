// Site health (wp-site-health/v1 and /admin/site-health) over real HTTP, Redis, SQLite, a loopback DNS server and
// Chromium. Two installations: a bare one (no public host name, no system sender, no backup) whose checks say
// critical in the REST answer and on the operator's page, turning good as the operator chooses the sender and takes
// a backup; and a configured one (mx.tern.test resolving here, a verified sender) whose checks are good, with the
// thresholds of config.siteHealth deciding the queue's and the certificate's. Only operators may ask: anonymous 401,
// an account's user 403, both rest_forbidden, and 404 for the page.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { startHarness, type Harness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { storedDomain } from './helpers/sending-setup.js';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';
import { cleanEnv, runCli } from './helpers/cli.js';

const NS = '/api/wp-site-health/v1';
const TESTS = ['system-sender', 'public-hostname', 'tls-certificate', 'dns-resolver', 'store-and-redis', 'queue', 'disk-space', 'backups'];

interface SiteHealthJson {
  label: string;
  status: string;
  badge: { label: string; color: string };
  description: string;
  actions: string;
  test: string;
}

const dns = await startDnsServer();
dns.set('mx.tern.test', [{ type: 'A', data: '127.0.0.1' }]);
const certDir = mkdtempSync(join(tmpdir(), 'tern-site-health-'));
let browser: TestBrowser | undefined;
const harnesses: Harness[] = [];
t.teardown(async () => {
  await browser?.close();
  for (const h of harnesses) await h.close();
  await dns.close();
  rmSync(certDir, { recursive: true, force: true });
});

/** A certificate for mx.tern.test that expires in `days` days, written as TERNMAIL_TLS_CERT and _KEY take it. */
async function certificateExpiringIn(days: number): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'mx.tern.test' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 86_400_000),
    notAfterDate: new Date(Date.now() + days * 86_400_000),
  });
  const cert = join(certDir, 'cert.pem');
  const key = join(certDir, 'key.pem');
  writeFileSync(cert, pems.cert);
  writeFileSync(key, pems.private, { mode: 0o600 });
  return { cert, key };
}

async function started(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  const h = await startHarness(options);
  harnesses.push(h);
  return h;
}

// The bare installation: TERNMAIL_PUBLIC_HOSTNAME empty counts as unset; a disk threshold no disk can meet.
const bare = await started({
  env: { TERNMAIL_PUBLIC_HOSTNAME: '', TERNMAIL_DNS_SERVERS: dns.address },
  overrides: { dkim: { keyBits: 1024 }, siteHealth: { diskFreeRecommendedPercent: 100, diskFreeCriticalPercent: 99.9999 } },
});
const tls = await certificateExpiringIn(5);
// The configured one: its name resolves here, its sender is set; one recipient in flight is already a backlog.
const configured = await started({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_TLS_CERT: tls.cert, TERNMAIL_TLS_KEY: tls.key, TERNMAIL_SYSTEM_MAIL_FROM: 'tern@mail.tern.test' },
  overrides: {
    dkim: { keyBits: 1024 },
    // Any disk with a few kilobytes free passes, so the good answer does not depend on the test machine's disk.
    siteHealth: { queueBacklogRecommended: 1, queueBacklogCritical: 1000, diskFreeRecommendedPercent: 0.002, diskFreeCriticalPercent: 0.001 },
  },
});
const senderTeam = await configured.account({ name: 'Platform mail' });
await storedDomain(configured, senderTeam.id, 'mail.tern.test');

const bareOperatorEmail = await operatorOn(bare);
const configuredOperatorEmail = await operatorOn(configured);
const bareOperator = await logIn(bare, bareOperatorEmail);
const configuredOperator = await logIn(configured, configuredOperatorEmail);

const check = async (h: Harness, s: SignedIn, test: string) => {
  const reply = await h.request<SiteHealthJson>('GET', `${NS}/tests/${test}`, withSession(s));
  if (reply.status !== 200) throw new Error(`${test}: ${reply.status} ${reply.text}`);
  return reply.body;
};

t.test('anonymous callers get 401 and account users 403, both rest_forbidden, on every route; the page is 404 to them', async (t) => {
  const account = await bare.account();
  const ownerEmail = await userOn(bare, account.id, 'owner');
  const owner = await logIn(bare, ownerEmail);
  for (const path of [`${NS}/tests`, ...TESTS.map((test) => `${NS}/tests/${test}`)]) {
    t.match(await bare.request('GET', path), { status: 401, body: { code: 'rest_forbidden', data: { status: 401 } } }, `${path} anonymous`);
    t.match(await bare.request('GET', path, withSession(owner)), { status: 403, body: { code: 'rest_forbidden', data: { status: 403 } } }, `${path} owner`);
  }
  const ownerCookie = await signInOverHttp(bare, ownerEmail);
  t.equal((await page(bare, 'GET', '/admin/site-health', { cookie: ownerCookie })).status, 404);
  t.ok(((await bare.request('GET', '/api/')).body.namespaces as string[]).includes('wp-site-health/v1'), 'the index lists the namespace');
});

t.test("a missing system sender and an unset public host name are critical in WordPress's result shape", async (t) => {
  const sender = await check(bare, bareOperator, 'system-sender');
  t.same(Object.keys(sender).sort(), ['actions', 'badge', 'description', 'label', 'status', 'test']);
  t.match(sender, { status: 'critical', label: 'No system sender is set', badge: { label: 'Email', color: 'red' }, test: 'system_sender' });
  t.match(sender.description, /^<p>Tern cannot send its own mail/);
  t.equal(sender.actions, '<p><a href="/admin">Choose Tern’s sender on the Platform page</a></p>');
  const host = await check(bare, bareOperator, 'public-hostname');
  t.match(host, { status: 'critical', label: 'The public host name is not set', test: 'public_hostname' });
  t.match(host.description, /TERNMAIL_PUBLIC_HOSTNAME is not set/);

  const all = await bare.request<SiteHealthJson[]>('GET', `${NS}/tests`, withSession(bareOperator));
  t.equal(all.status, 200);
  t.same(
    all.body.map((r) => r.test),
    TESTS.map((test) => test.replace(/-/g, '_')),
    'every check, in order',
  );
  t.match(all.body[0], { status: 'critical', test: 'system_sender' });
  t.match(all.body[1], { status: 'critical', test: 'public_hostname' });
});

t.test('a configured sender on a verified domain and a public host name resolving here are good', async (t) => {
  t.match(await check(configured, configuredOperator, 'system-sender'), { status: 'good', label: 'Tern can send its own mail', badge: { color: 'blue' } });
  const host = await check(configured, configuredOperator, 'public-hostname');
  t.match(host, { status: 'good', label: 'The public host name resolves to this machine' });
  t.match(host.description, /mx\.tern\.test resolves to 127\.0\.0\.1/);
  t.match(await check(configured, configuredOperator, 'store-and-redis'), { status: 'good' });
});

t.test('the DNS resolver check is critical when the resolver fails, and good when it answers (no such name counts)', async (t) => {
  t.match(await check(bare, bareOperator, 'dns-resolver'), { status: 'good' }, "the machine's own name is answered NXDOMAIN: still an answer");
  dns.fail('mx.tern.test');
  try {
    const failing = await check(configured, configuredOperator, 'dns-resolver');
    t.match(failing, { status: 'critical', label: 'The DNS resolver does not answer' });
    t.match(failing.description, /ESERVFAIL/);
    t.match(await check(configured, configuredOperator, 'public-hostname'), { status: 'recommended', label: 'The public host name could not be looked up' });
  } finally {
    dns.set('mx.tern.test', [{ type: 'A', data: '127.0.0.1' }]);
  }
  t.match(await check(configured, configuredOperator, 'dns-resolver'), { status: 'good' });
});

t.test('a certificate expiring within tlsExpiryDays is recommended; none made yet is recommended too', async (t) => {
  const expiring = await check(configured, configuredOperator, 'tls-certificate');
  t.match(expiring, { status: 'recommended', label: 'The TLS certificate expires soon', badge: { label: 'Security', color: 'orange' } });
  t.match(expiring.description, /in 4 days \(less than 14\)/);
  t.match(await check(bare, bareOperator, 'tls-certificate'), { status: 'recommended', label: 'No TLS certificate yet' });
});

t.test("the queue's backlog is measured against siteHealth's thresholds", async (t) => {
  t.match(await check(configured, configuredOperator, 'queue'), { status: 'good', label: 'The queue is flowing' });
  const team = await configured.account({ credits: 10 });
  await recordMessage(configured.rt.store, newMessage({ id: `site-health-${process.pid}`, teamId: team.id, domainId: null, recipients: queuedRecipients(2) }));
  const backlog = await check(configured, configuredOperator, 'queue');
  t.match(backlog, { status: 'recommended', label: 'The queue is backing up' });
  t.match(backlog.description, /2 recipients waiting for delivery, the oldest queued \d+ minutes ago; 0 held/);
});

t.test("the data dir's free space is measured against siteHealth's thresholds", async (t) => {
  const good = await check(configured, configuredOperator, 'disk-space');
  t.match(good, { status: 'good', label: 'Enough disk space' });
  t.match(good.description, new RegExp(`free of .* on the file system of ${configured.dataDir}`));
  t.match(await check(bare, bareOperator, 'disk-space'), { status: 'critical', label: 'The disk is almost full' });
});

t.test('the backups check is critical until `ternmail backup` records a backup, then good', async (t) => {
  if (bare.config.databaseUrl !== null) {
    t.match(await check(bare, bareOperator, 'backups'), { status: 'recommended', label: 'Back up PostgreSQL with its own tools' });
    return;
  }
  t.match(await check(bare, bareOperator, 'backups'), { status: 'critical', label: 'No backup has been taken' });
  const archive = join(certDir, 'tern.tar.gz');
  const taken = await runCli(['backup', '--to', archive], cleanEnv({ TERNMAIL_CONFIG: join(bare.dataDir, 'none.json'), TERNMAIL_DATA_DIR: bare.dataDir }));
  t.equal(taken.code, 0, taken.stderr);
  t.match(taken.json, { file: archive, recorded: true });
  const good = await check(bare, bareOperator, 'backups');
  t.match(good, { status: 'good', label: 'Backups are recent' });
  t.match(good.description, `to ${archive}`);
  t.match(await bare.rt.store.system.lastBackup(), { file: archive, sha256: taken.json.sha256 });
});

t.test("the operator's page shows each check's label, status, description and actions; critical ones turn good", async (t) => {
  browser = await startBrowser();
  const p = await signedInTab(browser, bare.url, bareOperatorEmail, '/admin/site-health');
  t.equal(await p.title(), 'Site health · Tern');
  for (const test of ['system-sender', 'public-hostname']) {
    const section = p.locator(`#check-${test}`);
    t.equal(await section.getAttribute('data-status'), 'critical', `${test} is critical`);
    t.equal(await section.locator('.status').innerText(), 'Critical');
  }
  t.equal(await p.locator('#check-system-sender h2').innerText(), 'No system sender is set');
  t.match(await p.locator('#check-system-sender').innerText(), /no address to send it from is chosen/);
  t.match(await p.locator('#check-public-hostname').innerText(), /TERNMAIL_PUBLIC_HOSTNAME is not set/);
  t.equal(await p.locator('#check-system-sender a[href="/admin"]').innerText(), 'Choose Tern’s sender on the Platform page');
  t.match(await p.locator('#site-health-summary').innerText(), /critical issues/);
  t.same(await seriousViolations(p), [], 'no serious accessibility violation');

  // The operator follows the action: a verified domain is offered on the Platform page, one click chooses it.
  const team = await bare.account({ name: 'Sender team' });
  await storedDomain(bare, team.id, 'mail.bare.test');
  await Promise.all([p.waitForURL((u) => u.pathname === '/admin'), p.click('#check-system-sender a[href="/admin"]')]);
  await Promise.all([p.waitForURL((u) => u.pathname === '/admin'), p.click('#use-system-sender')]);
  await p.goto(`${bare.url}/admin/site-health`);
  t.equal(await p.locator('#check-system-sender').getAttribute('data-status'), 'good');
  t.equal(await p.locator('#check-system-sender .status').innerText(), 'Good');
  t.match(await p.locator('#check-system-sender').innerText(), /sent from noreply@mail\.bare\.test/);
  t.equal(await p.locator('#check-public-hostname').getAttribute('data-status'), 'critical', 'the host name is still unset');
  t.match(await check(bare, bareOperator, 'system-sender'), { status: 'good' }, 'the REST answer agrees');
  await p.close();

  const shown = await page(configured, 'GET', '/admin/site-health', { cookie: await signInOverHttp(configured, configuredOperatorEmail) });
  t.equal(shown.status, 200);
  t.match(shown.text, /id="check-public-hostname" data-status="good"/);
  t.match(shown.text, /id="check-system-sender" data-status="good"/);
});
