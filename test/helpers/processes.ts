// A whole Tern deployment as separate processes, for tests that kill parts of it: real Redis, a loopback
// DNS server and MX sink, a data dir and config file, and the `ternmail mta` / `ternmail api` processes
// spawned from dist/ (rebuild first). A team with a verified domain and a sending key is set up through
// the CLI and the API, as an operator would.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../store/index.js';
import { cleanEnv, http, runCli, spawnTernmail, waitForApi, type LongRunning } from './cli.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { freePort, startRedis, type TestRedis } from './redis.js';
import { startSink, type Sink } from './sink.js';

export interface Sender {
  accountId: number;
  adminKey: string;
  sendingKey: string;
  domain: string;
}

export interface Deployment {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  redis: TestRedis;
  dns: TestDnsServer;
  sink: Sink;
  apiUrl: string;
  starttlsPort: number;
  tlsPort: number;
  mta: LongRunning | null;
  api: LongRunning | null;
  /** Spawns `ternmail mta` and resolves once its submission port greets. */
  startMta(): Promise<LongRunning>;
  startApi(): Promise<LongRunning>;
  /** SIGKILL, no chance to release anything. */
  killMta(): Promise<void>;
  /**
   * Kills Redis (SIGKILL), leaves it down for `downMs`, then starts it on the same port: from its AOF, or
   * brand-new and empty (what a lost Redis host looks like).
   */
  redisOutage(downMs: number, restart: 'from-aof' | 'empty'): Promise<void>;
  /** A team with a verified domain and a sending key (needs the API running). */
  sender(domain: string): Promise<Sender>;
  /** The SQLite store, opened by the test process beside the running ones. */
  store(): Promise<Store>;
  close(): Promise<void>;
}

export interface DeploymentOptions {
  /** Written to the config file named by TERNMAIL_CONFIG. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
}

/** Resolves when a TCP connection to `port` gets a greeting byte, so the listener is really up. */
async function waitForGreeting(port: number, mta: LongRunning, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (mta.exited()) throw new Error(`the MTA exited:\n${mta.output()}\n${mta.errors()}`);
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
      socket.setTimeout(2_000, () => (socket.destroy(), resolve(false)));
    });
    if (greeted) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the MTA did not greet on ${port} within ${timeoutMs} ms`);
}

function redisDir(redis: TestRedis): string {
  const args = redis.process.spawnargs;
  return args[args.indexOf('--dir') + 1]!;
}

/** Redis, DNS and sink; if one fails to start, the others are closed so that nothing keeps the test alive. */
async function startAll(): Promise<[TestRedis, TestDnsServer, Sink]> {
  const [redis, dns, sink] = await Promise.allSettled([startRedis(), startDnsServer(), startSink()]);
  if (redis.status === 'fulfilled' && dns.status === 'fulfilled' && sink.status === 'fulfilled') return [redis.value, dns.value, sink.value];
  if (redis.status === 'fulfilled') await redis.value.stop();
  if (dns.status === 'fulfilled') await dns.value.close();
  if (sink.status === 'fulfilled') await sink.value.close();
  throw [redis, dns, sink].find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
}

export async function startDeployment(options: DeploymentOptions = {}): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-proc-'));
  const configFile = join(dataDir, 'ternmail.json');
  writeFileSync(configFile, JSON.stringify(options.config ?? {}));
  const [redis, dns, sink] = await startAll();
  const apiPort = await freePort();
  const starttlsPort = await freePort();
  const tlsPort = await freePort();
  const env = cleanEnv({
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_CONFIG: configFile,
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_HOST: '127.0.0.1',
    TERNMAIL_API_PORT: String(apiPort),
    TERNMAIL_DNS_SERVERS: dns.address,
    TERNMAIL_REMOTE_SMTP_PORT: String(sink.port),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttlsPort),
    TERNMAIL_SMTP_TLS_PORTS: String(tlsPort),
    TERNMAIL_MX_PORT: String(await freePort()),
    TERNMAIL_VERIFY_INTERVAL_S: '3600',
    // Any free port for the MTA's /metrics, so that deployments side by side never collide.
    TERNMAIL_METRICS_PORT: '0',
    ...options.env,
  });
  const stores: Store[] = [];
  const d: Deployment = {
    dataDir,
    env,
    redis,
    dns,
    sink,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    starttlsPort,
    tlsPort,
    mta: null,
    api: null,
    async startMta() {
      const mta = spawnTernmail(['mta'], env);
      d.mta = mta;
      await waitForGreeting(starttlsPort, mta);
      return mta;
    },
    async startApi() {
      const api = spawnTernmail(['api'], env);
      d.api = api;
      await waitForApi(d.apiUrl, api, 60_000);
      return api;
    },
    async killMta() {
      if (d.mta && !d.mta.exited()) await d.mta.stop('SIGKILL');
    },
    async redisOutage(downMs, restart) {
      const dir = redisDir(redis);
      await new Promise<void>((resolve) => {
        if (redis.process.exitCode !== null || redis.process.signalCode !== null) return resolve();
        redis.process.once('exit', () => resolve());
        redis.process.kill('SIGKILL');
      });
      await new Promise((r) => setTimeout(r, downMs));
      if (restart === 'empty') for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
      await redis.restart();
    },
    async sender(domain) {
      const account = await runCli(['account', 'create', '--name', `Reliability ${domain}`, '--credits', '100000', '--limit-per-second', '100000'], env);
      if (account.code !== 0) throw new Error(`account create failed: ${account.stderr}`);
      const admin = await runCli(['admin-key', 'create', '--account', String(account.json.id), '--title', 't', '--scopes', 'all'], env);
      if (admin.code !== 0) throw new Error(`admin-key create failed: ${admin.stderr}`);
      const created = await http(d.apiUrl, 'POST', '/v2/domains', { key: admin.json.key, body: { name: domain } });
      if (created.status !== 201) throw new Error(`domain create failed: ${JSON.stringify(created.body)}`);
      const store = await d.store();
      await store.domains.recordCheck(created.body.data.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
      const key = await http(d.apiUrl, 'POST', '/v2/api-keys', { key: admin.json.key, body: { name: 'reliability' } });
      if (!key.body?.data?.api_key) throw new Error(`sending key create failed: ${JSON.stringify(key.body)}`);
      return { accountId: account.json.id, adminKey: admin.json.key, sendingKey: key.body.data.api_key, domain };
    },
    async store() {
      if (!stores.length) stores.push(await openStore(dataDir));
      return stores[0]!;
    },
    async close() {
      for (const p of [d.mta, d.api]) if (p && !p.exited()) await p.stop('SIGKILL').catch(() => undefined);
      for (const s of stores) await s.close().catch(() => undefined);
      await sink.close();
      await dns.close();
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  return d;
}
