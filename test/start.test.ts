// The run contract: `ternmail start` on embedded defaults (a managed redis-server, a fresh data dir, the
// first admin key printed once), its clean shutdown, and `ternmail api` and `ternmail mta` run as
// separate processes sharing one Redis and one data dir.
import t, { type Test } from 'tap';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { publicHostnameProblem } from '../shared/public-hostname.js';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort, startRedis } from './helpers/redis.js';
import { startDnsServer } from './helpers/dns-server.js';
import { redisKeys } from '../shared/redis-keys.js';
import { openStore } from '../shared/store/index.js';
import { verifyPassword } from '../shared/core/identity/passwords.js';
import {
  alive,
  childPids,
  cleanEnv,
  commandLine,
  eventually,
  fileExists,
  http,
  processesMentioning,
  runCli,
  sleep,
  spawnTernmail,
  tempHome,
  waitForApi,
} from './helpers/cli.js';

const KEY_LINE = /Admin key:\s+(tern_admin_[A-Za-z0-9_-]+)/;
/** The dashboard's URL, the owner's login email and one-time password, printed beside the admin key. */
const OWNER_LINES = /Dashboard:\s+(\S+)\n\s+Login:\s+(\S+)\n\s+Password:\s+(\S+)\n/;

/** Environment for `start`: embedded defaults, except free ports (API, SMTP, metrics) so that test files running
 * in parallel never collide. */
async function startEnv(dataDir: string, configFile: string): Promise<{ env: NodeJS.ProcessEnv; base: string }> {
  const [api, starttls, tls, mx, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const env = cleanEnv({
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_CONFIG: configFile,
    TERNMAIL_API_PORT: String(api),
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttls),
    TERNMAIL_SMTP_TLS_PORTS: String(tls),
    TERNMAIL_MX_PORT: String(mx),
    TERNMAIL_METRICS_PORT: String(metrics),
  });
  return { env, base: `http://127.0.0.1:${api}` };
}

t.test('ternmail start on embedded defaults, restarted, then stopped with SIGTERM', async (t) => {
  const home = tempHome('tern-start-');
  const dataDir = join(home.dir, 'data');
  t.teardown(() => {
    for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
    rmSync(home.dir, { recursive: true, force: true });
  });
  let firstKey = '';
  let domainId = '';
  let owner = { email: '', password: '' };

  await t.test('the first start creates the data dir and prints the API URL and a working admin key', async (t) => {
    t.notOk(fileExists(dataDir), 'no data dir before the first start');
    const { env, base } = await startEnv(dataDir, home.configFile);
    const start = spawnTernmail(['start'], env);
    t.teardown(() => (start.exited() ? undefined : start.stop('SIGKILL').then(() => undefined)));
    const out = await start.waitForOutput((o) => KEY_LINE.test(o) && OWNER_LINES.test(o), 60_000);
    firstKey = KEY_LINE.exec(out)![1]!;
    t.match(out, `${base}/v2`, 'the API URL is printed');
    const [, dashboardUrl, ownerEmail, ownerPassword] = OWNER_LINES.exec(out)!;
    t.equal(dashboardUrl, `${base}/`, 'the dashboard URL is the API base URL');
    t.equal(ownerEmail, 'owner@tern.localhost', 'the owner’s login email (the documented default)');
    t.match(ownerPassword, /^[A-Za-z0-9]{24}$/, 'a one-time password');
    owner = { email: ownerEmail!, password: ownerPassword! };
    t.equal(out.match(/tern_admin_/g)?.length, 2, 'the key is printed in the welcome and in the curl example only');
    // No TERNMAIL_PUBLIC_HOSTNAME here: the machine's own name is used, and the start says when it is not public.
    if (publicHostnameProblem(hostname().toLowerCase()) === null) t.notMatch(out, /WARNING: TERNMAIL_PUBLIC_HOSTNAME/);
    else t.match(out, /WARNING: TERNMAIL_PUBLIC_HOSTNAME is not set, and this machine's name "[^"]+" cannot be the public host name/, 'the start warns');
    await waitForApi(base, start, 60_000);

    t.ok(statSync(join(dataDir, 'tern.db')).isFile(), 'tern.db');
    t.equal(statSync(join(dataDir, 'keys', 'master.key')).mode & 0o777, 0o600, 'keys/master.key has mode 0600');
    t.ok(statSync(join(dataDir, 'tls', 'cert.pem')).isFile(), 'tls/cert.pem');
    t.equal(statSync(join(dataDir, 'tls', 'key.pem')).mode & 0o077, 0, 'tls/key.pem is readable by its owner only');
    t.ok(statSync(join(dataDir, 'redis', 'redis.sock')).isSocket(), 'redis/redis.sock is the managed Redis socket');

    const info = await http(base, 'GET', '/v2/info', { key: firstKey });
    t.equal(info.status, 200);
    t.equal(info.body.key.scopes.length, 12, 'the first key holds every scope');
    t.equal(info.body.account.credit_balance, 1000, 'the first account can try sending');
    const created = await http(base, 'POST', '/v2/domains', { key: firstKey, body: { name: 'first-start-example.com' } });
    t.equal(created.status, 201);
    domainId = created.body.data.id;

    // The process tree: one redis-server on the data dir's socket, and the api and mta children.
    const children = childPids(start.pid);
    const lines = children.map(commandLine);
    t.ok(
      lines.some((l) => l.startsWith('redis-server') && l.includes(dataDir)),
      `redis-server is a child: ${lines.join(' | ')}`,
    );
    t.ok(
      lines.some((l) => / \S*dist\/api\/process\.js$/.test(l)),
      'the api is a child process, its entry file run by node',
    );
    t.ok(
      lines.some((l) => / \S*dist\/mta\/process\.js$/.test(l)),
      'the mta is a child process, its entry file run by node',
    );
    const processes = children.filter((pid) => /process\.js$/.test(commandLine(pid)));
    t.ok(
      processes.length === 2 && processes.every((pid) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('UV_THREADPOOL_SIZE=16')),
      'both start with the thread pool size in their environment',
    );

    const stopped = await start.stop('SIGTERM', 15_000);
    t.equal(stopped.code, 0, 'a SIGTERM is a clean exit');
    t.ok(stopped.ms < 10_000, `stopped in ${stopped.ms} ms`);
    await eventually(() => (children.every((pid) => !alive(pid)) ? true : undefined), 5_000, 'the children to exit');
    t.same(processesMentioning(dataDir), [], 'no process is left on the data dir');
    t.notOk(fileExists(join(dataDir, 'redis', 'redis.sock')), 'the managed Redis removed its socket');

    const store = await openStore(dataDir);
    t.teardown(() => store.close());
    const user = await store.users.findByEmail(owner.email);
    t.match(user, { role: 'owner', teamId: 1, mustChangePassword: true }, 'the owner user of the first account, to change its password');
    t.ok(await verifyPassword((await store.users.passwordHash(user!.id))!, owner.password), 'the printed password is the owner’s');
  });

  await t.test('a second start prints no new key and the first key still works', async (t) => {
    const { env, base } = await startEnv(dataDir, home.configFile);
    const start = spawnTernmail(['start'], env);
    t.teardown(() => (start.exited() ? undefined : start.stop('SIGKILL').then(() => undefined)));
    await start.waitForOutput((o) => o.includes('Tern is starting'), 60_000);
    await waitForApi(base, start, 60_000);
    t.notMatch(start.output(), /tern_admin_/, 'no key is printed');
    t.notMatch(start.output(), /Password:/, 'nor a password');
    t.match(start.output(), `${base}/v2`, 'the API URL is printed again');
    t.match(start.output(), `Dashboard: ${base}/`, 'and the dashboard URL');

    const info = await http(base, 'GET', '/v2/info', { key: firstKey });
    t.equal(info.status, 200);
    t.equal(info.body.account.id, 1, 'no second account was made');
    const domain = await http(base, 'GET', `/v2/domains/${domainId}`, { key: firstKey });
    t.equal(domain.status, 200, 'the domain added before the restart is still there');
    t.equal(domain.body.data.domain_name, 'first-start-example.com');

    const children = childPids(start.pid);
    const stopped = await start.stop('SIGTERM', 15_000);
    t.equal(stopped.code, 0);
    await eventually(() => (children.every((pid) => !alive(pid)) ? true : undefined), 5_000, 'the children to exit');
    t.same(processesMentioning(dataDir), []);
  });
});

/** A listener on a port, as another program holding it would be. */
async function holdPort(port: number, t: Test): Promise<void> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', () => resolve()));
  t.teardown(() => blocker.close());
}

for (const setting of ['TERNMAIL_API_PORT', 'TERNMAIL_MX_PORT', 'TERNMAIL_METRICS_PORT'] as const) {
  t.test(`a first start whose ${setting} is taken names it, exits 1 and creates nothing`, async (t) => {
    const home = tempHome('tern-start-busy-');
    const dataDir = join(home.dir, 'data');
    const { env } = await startEnv(dataDir, home.configFile);
    await holdPort(Number(env[setting]), t);
    t.teardown(() => {
      for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
      rmSync(home.dir, { recursive: true, force: true });
    });
    const start = spawnTernmail(['start'], env);
    const exit = await eventually(() => (start.exited() ? start.child.exitCode : undefined), 60_000, 'start to give up');
    t.equal(exit, 1, 'a start that cannot listen fails with 1');
    t.match(start.errors(), new RegExp(`port ${env[setting]} .*in use.*${setting}`), 'the error names the port and the setting');
    t.notMatch(start.output(), /tern_admin_|Password:/, 'no key nor password is printed');
    t.notOk(fileExists(dataDir), 'the data dir is not created');
    t.same(processesMentioning(dataDir), [], 'no redis-server or child is left behind');
  });
}

t.test('ternmail api alone on a taken port names TERNMAIL_API_PORT and exits 1', async (t) => {
  const home = tempHome('tern-api-busy-');
  const redis = await startRedis();
  const { env } = await startEnv(home.dir, home.configFile);
  await holdPort(Number(env.TERNMAIL_API_PORT), t);
  t.teardown(async () => {
    await redis.stop();
    rmSync(home.dir, { recursive: true, force: true });
  });
  const api = spawnTernmail(['api'], { ...env, TERNMAIL_REDIS_URL: redis.url });
  const exit = await eventually(() => (api.exited() ? api.child.exitCode : undefined), 60_000, 'the api to give up');
  t.equal(exit, 1);
  t.match(api.errors(), new RegExp(`port ${env.TERNMAIL_API_PORT} .*in use.*TERNMAIL_API_PORT`), 'the error names the setting');
});

t.test('ternmail api and ternmail mta as separate processes share one Redis and one data dir', async (t) => {
  const home = tempHome('tern-split-');
  const redis = await startRedis();
  const dns = await startDnsServer();
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  const [starttls, tls, mx, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = cleanEnv({
    TERNMAIL_DATA_DIR: home.dir,
    TERNMAIL_CONFIG: home.configFile,
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_PORT: String(apiPort),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_DNS_SERVERS: dns.address,
    TERNMAIL_VERIFY_INTERVAL_S: '0.5',
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttls),
    TERNMAIL_SMTP_TLS_PORTS: String(tls),
    TERNMAIL_MX_PORT: String(mx),
    TERNMAIL_METRICS_PORT: String(metrics),
  });
  const probe = new Redis(redis.url);
  t.teardown(async () => {
    probe.disconnect();
    await dns.close();
    await redis.stop();
    rmSync(home.dir, { recursive: true, force: true });
  });

  const account = await runCli(['account', 'create', '--name', 'Split Co'], env);
  const admin = await runCli(['admin-key', 'create', '--account', String(account.json.id), '--title', 't', '--scopes', 'all'], env);
  t.equal(admin.code, 0, admin.stderr);
  const key: string = admin.json.key;

  // Hold the verification lock in the shared Redis: an mta that uses that Redis must not run a check.
  const lock = redisKeys.verifyLock();
  await probe.set(lock, 'the-test', 'PX', 120_000);

  const api = spawnTernmail(['api'], env);
  const mta = spawnTernmail(['mta'], env);
  t.teardown(async () => {
    for (const p of [api, mta]) if (!p.exited()) await p.stop('SIGKILL');
  });
  await waitForApi(base, api, 60_000);

  const created = await http(base, 'POST', '/v2/domains', { key, body: { name: 'split-process-example.com' } });
  t.equal(created.status, 201);
  const id: string = created.body.data.id;
  const { dkim, spf } = (await http(base, 'GET', `/v2/domains/${id}`, { key })).body.data.dns_records;
  const mxRecord = spf.find((r: { type: string }) => r.type === 'MX');
  const spfRecord = spf.find((r: { type: string }) => r.type === 'TXT');
  dns.set(`${dkim.name}.split-process-example.com`, [{ type: 'TXT', data: dkim.content }]);
  dns.set(`send.split-process-example.com`, [
    { type: 'TXT', data: spfRecord.content },
    { type: 'MX', data: { preference: Number(mxRecord.priority), exchange: mxRecord.content } },
  ]);

  await sleep(2_500);
  t.equal(dns.queries.length, 0, 'no DNS check while another holder has the lock in the shared Redis');
  t.equal((await http(base, 'GET', `/v2/domains/${id}`, { key })).body.data.verification_status, 'draft');

  await probe.del(lock);
  const verified = await eventually(
    async () => {
      const res = await http(base, 'GET', `/v2/domains/${id}`, { key });
      return res.body.data.verification_status === 'verified' ? res.body.data : undefined;
    },
    30_000,
    'the mta to verify the domain',
  );
  t.equal(verified.auto_verification.active, false, 'the api shows what the mta wrote');
  t.ok(
    dns.queries.some((q) => q.name.toLowerCase() === `${dkim.name}.split-process-example.com`),
    'the mta asked the configured DNS server',
  );

  const [apiStop, mtaStop] = await Promise.all([api.stop('SIGTERM', 15_000), mta.stop('SIGTERM', 15_000)]);
  t.equal(apiStop.code, 0, 'the api exits cleanly on SIGTERM');
  t.equal(mtaStop.code, 0, 'the mta exits cleanly on SIGTERM');
});
