// Issue 22, Must show 3: a first install as a new operator meets it, with real processes through the built CLI.
// With the API port taken, `ternmail start` names the variable, exits non-zero and creates nothing (see also
// start.test.ts). With it free: the owner adds and verifies a domain, the operator's page offers it as Tern's
// system sender and one click (a form post) sets it, and an invitation sent from the team page reaches a local
// SMTP sink through the MTA's real delivery.
import t from 'tap';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { publishRecords, startDnsServer, type ShownRecords, type TestDnsServer } from './helpers/dns-server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { freePort } from './helpers/redis.js';
import { mailTo } from './helpers/system-mail.js';
import { cleanEnv, eventually, fileExists, http, processesMentioning, runCli, spawnTernmail, tempHome, waitForApi, type LongRunning } from './helpers/cli.js';

const KEY_LINE = /Admin key:\s+(tern_admin_[A-Za-z0-9_-]+)/;
const OWNER_LINES = /Dashboard:\s+(\S+)\n\s+Login:\s+(\S+)\n\s+Password:\s+(\S+)\n/;
const DOMAIN = 'first-run-example.com';
const INVITEE = 'new.member@dest.test';

let dns: TestDnsServer;
let sink: Sink;
const home = tempHome('tern-first-run-');
const dataDir = join(home.dir, 'data');

t.before(async () => {
  [dns, sink] = await Promise.all([startDnsServer(), startSink()]);
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
});

t.teardown(async () => {
  for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
  await Promise.all([dns?.close(), sink?.close()]);
  rmSync(home.dir, { recursive: true, force: true });
});

async function envWithFreePorts(): Promise<NodeJS.ProcessEnv> {
  const [api, starttls, tls, mx, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  return cleanEnv({
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
}

/** The dashboard over plain HTTP, as a browser without scripts would use it: a cookie, forms posted urlencoded. */
class Tab {
  cookie = '';
  constructor(private readonly base: string) {}

  async go(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; text: string }> {
    const headers: Record<string, string> = this.cookie ? { cookie: this.cookie } : {};
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(this.base + path, { method, headers, body: form && new URLSearchParams(form).toString(), redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    if (set?.startsWith('tern_session=')) this.cookie = set.split(';')[0]!;
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  /** The hidden fields (CSRF token, team) the forms of the page at `path` carry. */
  async guard(path: string): Promise<Record<string, string>> {
    const text = (await this.go('GET', path)).text;
    const nonce = /name="_wpnonce" value="([0-9a-f]{10})"/.exec(text)?.[1];
    if (!nonce) throw new Error(`no form token on ${path}: ${text.slice(0, 300)}`);
    const team = /name="_team" value="(\d+)"/.exec(text)?.[1];
    return team ? { _wpnonce: nonce, _team: team } : { _wpnonce: nonce };
  }

  /** Signs in with a one-time password and chooses a password of one's own, as the first sign-in asks. */
  async signInFirstTime(email: string, oneTime: string): Promise<void> {
    const signedIn = await this.go('POST', '/wp-login.php', { email, password: oneTime });
    if (!this.cookie) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text.slice(0, 300)}`);
    const changed = await this.go('POST', '/change-password', {
      ...(await this.guard('/change-password')),
      current_password: oneTime,
      new_password: 'a long password of our own',
    });
    if (changed.status !== 303) throw new Error(`password change failed: ${changed.status} ${changed.text.slice(0, 300)}`);
  }
}

t.test('a first start with the API port taken names TERNMAIL_API_PORT, exits non-zero and creates nothing', async (t) => {
  const env = await envWithFreePorts();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(Number(env.TERNMAIL_API_PORT), '127.0.0.1', () => resolve()));
  t.teardown(() => blocker.close());
  const start = spawnTernmail(['start'], env);
  const exit = await eventually(() => (start.exited() ? start.child.exitCode : undefined), 60_000, 'start to give up');
  t.not(exit, 0, 'the start fails');
  t.match(start.errors(), /TERNMAIL_API_PORT/, 'the error names the variable to change');
  t.notOk(fileExists(dataDir), 'nothing is created: no data dir');
});

t.test('with the port free: one click makes the first verified domain the system sender, and a team invitation is delivered', async (t) => {
  const env = await envWithFreePorts();
  const tern: LongRunning = spawnTernmail(['start'], env);
  t.teardown(() => (tern.exited() ? undefined : tern.stop('SIGTERM', 20_000).then(() => undefined)));
  const out = await tern.waitForOutput((o) => OWNER_LINES.test(o) && KEY_LINE.test(o), 90_000);
  const key = KEY_LINE.exec(out)![1]!;
  const [, dashboard, ownerEmail, ownerPassword] = OWNER_LINES.exec(out)!;
  const base = dashboard!.replace(/\/$/, '');
  await waitForApi(base, tern, 60_000);

  // The owner's domain, its records published, verified.
  const created = await http(base, 'POST', '/v2/domains', { key, body: { name: DOMAIN } });
  t.equal(created.status, 201);
  const domainId: string = created.body.data.id;
  publishRecords(dns, (await http(base, 'GET', `/v2/domains/${domainId}`, { key })).body.data as ShownRecords);
  const owner = new Tab(base);
  await owner.signInFirstTime(ownerEmail!, ownerPassword!);
  const verified = await owner.go('POST', `/domains/${domainId}/verify`, await owner.guard(`/domains/${domainId}`));
  t.equal(verified.status, 303, 'the owner checks the domain now');
  t.equal((await http(base, 'GET', `/v2/domains/${domainId}`, { key })).body.data.verification_status, 'verified');

  // The operator, made with the CLI, signs in: its platform page offers that domain as the system sender.
  const made = await runCli(['operator', 'create', '--email', 'operator@tern.localhost'], env);
  t.equal(made.code, 0, made.stderr);
  const operator = new Tab(base);
  await operator.signInFirstTime('operator@tern.localhost', made.json.one_time_password);
  const platform = await operator.go('GET', '/admin');
  t.equal(platform.status, 200);
  t.match(platform.text, /Tern cannot send its own mail yet/, 'the operator is told why Tern sends no mail');
  t.match(platform.text, `noreply@${DOMAIN}`, 'the first verified domain is offered');
  const form = /<form method="post" action="\/admin\/system-sender"[^>]*>([\s\S]*?)<\/form>/.exec(platform.text)?.[1] ?? '';
  const fields = Object.fromEntries([...form.matchAll(/<input\s+type="hidden"\s+name="([^"]+)"\s+value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  const clicked = await operator.go('POST', '/admin/system-sender', fields);
  t.equal(clicked.status, 303, clicked.text.slice(0, 500));
  const after = await operator.go('GET', clicked.location ?? '/admin');
  t.match(after.text, `Tern sends its own mail from noreply@${DOMAIN}`, 'the page shows the sender in use');
  const audited = await operator.go('GET', '/admin/audit-log');
  t.match(audited.text, `platform setting system_mail.from`, 'the change is in the audit log');
  t.match(audited.text, `noreply@${DOMAIN}`, 'with the address chosen');

  // The owner invites a member from the team page; the invitation reaches the sink through the MTA.
  const invited = await owner.go('POST', '/team/invitations', { ...(await owner.guard('/team')), email: INVITEE, role: 'viewer' });
  t.equal(invited.status, 303, invited.text.slice(0, 500));
  const mail = await mailTo(sink, INVITEE, 1, 30_000);
  t.match(mail.parsed.from?.text, `noreply@${DOMAIN}`, 'from the system sender');
  t.match(mail.parsed.text, /accept-invitation\?token=/, 'carrying the link');
});
