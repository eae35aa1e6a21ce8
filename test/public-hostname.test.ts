// Issue 22 item 8: a public host name that is unset on a machine with a bare name (`vm`) or not public (localhost,
// .local, .internal, an IP) is a configuration problem. `ternmail config check` and `ternmail status` say so; a
// domain's DNS records are not shown (dashboard page, /v2 and the dashboard's REST) and no domain is verified
// against them, even when its zone publishes exactly what a wrong page would have asked for.
import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { logIn, userOn, withSession } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';
import { cleanEnv, runCli, tempHome } from './helpers/cli.js';
import { publicHostnameProblem } from '../shared/public-hostname.js';

t.test('the rule: a name under a public suffix (or .test, reserved for tests) is public; a bare name, an IP or a local name is not', async (t) => {
  for (const host of ['mx.example.com', 'mail.example.co.uk', 'mx.tern.test', 'smtp.customer.github.io']) t.equal(publicHostnameProblem(host), null, host);
  for (const host of [
    'vm',
    'localhost',
    'mx.localhost',
    'vm.local',
    'ip-10-0-0-1.ec2.internal',
    'box.lan',
    'router.home.arpa',
    '192.0.2.1',
    '::1',
    'co.uk',
    'mx.example',
    'x.invalid',
    'foo.notatld',
  ]) {
    t.type(publicHostnameProblem(host), 'string', `${host} is refused`);
  }
});

t.test('ternmail config check names TERNMAIL_PUBLIC_HOSTNAME when it is a bare or local name, and exits 1', async (t) => {
  const home = tempHome('tern-hostname-');
  t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
  const env = (host: string) => cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: home.dir, TERNMAIL_PUBLIC_HOSTNAME: host });
  for (const host of ['vm', 'mail.internal']) {
    const res = await runCli(['config', 'check'], env(host));
    t.equal(res.code, 1, `${host}: exit 1`);
    t.match(res.stdout, new RegExp(`TERNMAIL_PUBLIC_HOSTNAME \\(publicHostname\\) "${host.replace('.', '\\.')}" cannot be the public host name`), res.stdout);
  }
  const good = await runCli(['config', 'check'], env('mx.example.com'));
  t.equal(good.code, 0, good.stdout);
  const status = await runCli(['status'], env('vm'));
  t.match(status.stdout, /TERNMAIL_PUBLIC_HOSTNAME \(publicHostname\) "vm" cannot be the public host name/, 'ternmail status says so too');
});

t.test('with the public host name `vm`, no record is shown and a domain publishing the wrong records is not verified', async (t) => {
  const dns = await startDnsServer();
  const h = await startHarness({ env: { TERNMAIL_PUBLIC_HOSTNAME: 'vm', TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' } });
  t.teardown(async () => {
    await h.close();
    await dns.close();
  });
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const name = `wrong-host-${process.pid}.com`;
  const created = await h.request<{ data: { id: string } }>('POST', '/v2/domains', { key: account.key, body: { name } });
  t.equal(created.status, 201);
  const id = created.body.data.id;

  const v2 = await h.request<{ data: Record<string, unknown> }>('GET', `/v2/domains/${id}`, { key: account.key });
  t.equal(v2.status, 200);
  t.equal(v2.body.data.dns_records, null, '/v2 shows no records');
  t.match(v2.body.data.dns_records_unavailable, /cannot be shown/, 'and says why');
  t.notMatch(JSON.stringify(v2.body), 'include:vm');

  const rest = await h.request<Record<string, unknown>>('GET', `/api/tern/v2/api/domains/${id}`, withSession(await logIn(h, email)));
  t.equal(rest.status, 200);
  t.notMatch(JSON.stringify(rest.body), 'include:vm', 'nor does the dashboard’s REST');

  const cookie = await signInOverHttp(h, email);
  const shown = await page(h, 'GET', `/domains/${id}`, { cookie });
  t.equal(shown.status, 200, 'the rest of the page is there');
  t.match(shown.text, /The DNS records cannot be shown yet/);
  t.notMatch(shown.text, /include:vm|send\.[^<]*vm</, 'no record pointing at vm');

  const mailed = await page(h, 'POST', `/domains/${id}/send-records`, {
    cookie,
    form: { ...(await formGuardOf(h, cookie, `/domains/${id}`)), email: 'zone@example.com' },
  });
  t.equal(mailed.status, 403, '"Email the records" is refused');
  t.match(mailed.text, /The DNS records cannot be shown yet/);

  // The zone publishes what a wrong page asked for; the DKIM record with the domain's own key too.
  const stored = (await h.rt.store.domains.get(id))!;
  dns.set(`tern._domainkey.${name}`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${stored.dkimPublicKey}` }]);
  dns.set(`send.${name}`, [
    { type: 'MX', data: { preference: 10, exchange: 'vm' } },
    { type: 'TXT', data: 'v=spf1 include:vm ~all' },
  ]);
  const checked = await page(h, 'POST', `/domains/${id}/verify`, { cookie, form: await formGuardOf(h, cookie, `/domains/${id}`) });
  t.ok(checked.status < 500, String(checked.status));
  t.equal((await h.rt.store.domains.get(id))!.verificationStatus, 'draft', 'not verified against records pointing at vm');
  const cliEnv = cleanEnv({
    TERNMAIL_DATA_DIR: h.dataDir,
    TERNMAIL_CONFIG: join(h.dataDir, 'none.json'),
    TERNMAIL_PUBLIC_HOSTNAME: 'vm',
    TERNMAIL_DNS_SERVERS: dns.address,
  });
  const cli = await runCli(['domain', 'check', '--id', id], cliEnv);
  t.equal(cli.json?.verification_status, 'draft', '`ternmail domain check` does not verify it either');
});
