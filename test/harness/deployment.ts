// A whole Tern deployment as separate processes on loopback, for the tests that kill parts of it and for the
// benchmarks: a real Redis, a DNS server whose `dest.test` MX is 127.0.0.1, a data dir and config file, and
// the `ternmail mta` / `ternmail api` processes spawned from dist/ (rebuild first). A team with a verified
// domain and a sending key is set up through the CLI and the API, as an operator would.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { masterKeyFile } from '../../shared/data-dir.js';
import { loadSecretBox } from '../../shared/secret-box.js';
import { openStore, type Store } from '../../shared/store/index.js';
import { stopChild } from '../../shared/stop-child.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { freePorts } from './ports.js';
import { startRedis, type TestRedis } from './redis.js';
import { openTestStore, testEngineEnv } from './test-engine.js';
import { cleanEnv, http, runCli, spawnTernmail, waitForApi, waitForGreeting, type LongRunning } from './ternmail.js';

export interface Sender {
  accountId: number;
  adminKey: string;
  sendingKey: string;
  sendingKeyId: number;
  domain: string;
  domainId: string;
}

export interface SenderOptions {
  /** The account's name (default "Team <domain>"). */
  name?: string;
  credits?: number;
  limitPerSecond?: number;
}

export interface CloseOptions {
  /** SIGTERM first and SIGKILL after this long (default 0: SIGKILL at once, no chance to release anything). */
  graceMs?: number;
  /** Leave the data dir (config, database, logs) in place. */
  keepData?: boolean;
}

type Role = 'mta' | 'api';

/** One more `ternmail api` or `ternmail mta` of the deployment, as on another machine: see Deployment.addNode. */
export interface ExtraNode {
  role: Role;
  process: LongRunning;
  /** Its own data dir (its TLS certificate, logs), holding a copy of the deployment's master key. */
  dataDir: string;
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  starttlsPort: number;
  /** The name it gives in EHLO (mx<n>.tern.test). */
  hostname: string;
}

export interface Deployment {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  redis: TestRedis;
  dns: TestDnsServer;
  apiUrl: string;
  starttlsPort: number;
  tlsPort: number;
  metricsPort: number;
  /** The API's metrics listener (/metrics is not on the API's port). */
  apiMetricsUrl: string;
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
  sender(domain: string, options?: SenderOptions): Promise<Sender>;
  /**
   * Another API or MTA on the same store and Redis with listeners of its own, as another machine runs one: its
   * own data dir with the same keys/master.key (copied). Resolves once it answers; stopped by close().
   */
  addNode(role: Role): Promise<ExtraNode>;
  /** The store (SQLite in the data dir, or the PostgreSQL database), opened by this process beside the running ones. */
  store(): Promise<Store>;
  close(options?: CloseOptions): Promise<void>;
}

export interface DeploymentOptions {
  /** The SMTP port of the recipients' MX hosts (a sink, or a closed port): the MTA delivers there. */
  remotePort: number;
  /** Written to the config file named by TERNMAIL_CONFIG. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Names the temp data dir, tern-<name>-XXXXXX (default "proc"). */
  name?: string;
  /** Node options for Tern's processes (the benchmarks give the service flags). */
  nodeArgs?: (role: Role) => string[];
  /** Tern's output is appended to <dataDir>/<role>.log instead of being kept in memory. */
  logToFiles?: boolean;
  /** A postgres:// URL: every process gets it as TERNMAIL_DATABASE_URL and runs on that database instead of SQLite. */
  databaseUrl?: string;
  /** Redis keeps an append-only file (the default), so that redisOutage can restart from it; benchmarks turn it off. */
  redisAppendOnly?: boolean;
}

/** Redis and DNS; if one fails to start, the other is closed so that nothing keeps the process alive. */
async function startServices(appendOnly: boolean): Promise<[TestRedis, TestDnsServer]> {
  const [redis, dns] = await Promise.allSettled([startRedis({ appendOnly }), startDnsServer()]);
  if (redis.status === 'fulfilled' && dns.status === 'fulfilled') return [redis.value, dns.value];
  if (redis.status === 'fulfilled') await redis.value.stop();
  if (dns.status === 'fulfilled') await dns.value.close();
  throw [redis, dns].find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
}

/** Free loopback ports for every listener, so that deployments side by side never collide. */
async function ports() {
  const [api, starttls, tls, mx, metrics, apiMetrics] = (await freePorts(6)) as [number, number, number, number, number, number];
  return { api, starttls, tls, mx, metrics, apiMetrics };
}

function deploymentEnv(dataDir: string, redis: TestRedis, dns: TestDnsServer, port: Awaited<ReturnType<typeof ports>>, o: DeploymentOptions) {
  return cleanEnv({
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_CONFIG: join(dataDir, 'ternmail.json'),
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_HOST: '127.0.0.1',
    TERNMAIL_API_PORT: String(port.api),
    TERNMAIL_DNS_SERVERS: dns.address,
    TERNMAIL_REMOTE_SMTP_PORT: String(o.remotePort),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_SMTP_STARTTLS_PORTS: String(port.starttls),
    TERNMAIL_SMTP_TLS_PORTS: String(port.tls),
    TERNMAIL_MX_PORT: String(port.mx),
    TERNMAIL_METRICS_PORT: String(port.metrics),
    TERNMAIL_API_METRICS_PORT: String(port.apiMetrics),
    // The domain verifier must not undo the "verified" that sender() records while a run lasts.
    TERNMAIL_VERIFY_INTERVAL_S: '86400',
    ...(o.databaseUrl ? { TERNMAIL_DATABASE_URL: o.databaseUrl } : {}),
    ...o.env,
  });
}

/** An account, an admin key, the domain marked verified in the store (there is no DNS for it) and a sending key. */
async function createSender(d: Deployment, domain: string, o: SenderOptions): Promise<Sender> {
  const { credits = 100_000, limitPerSecond = 100_000 } = o;
  const account = await runCli(
    ['account', 'create', '--name', o.name ?? `Team ${domain}`, '--credits', String(credits), '--limit-per-second', String(limitPerSecond)],
    d.env,
  );
  if (account.code !== 0) throw new Error(`account create failed: ${account.stderr}`);
  const accountId = (account.json as { id: number }).id;
  const admin = await runCli(['admin-key', 'create', '--account', String(accountId), '--title', 'harness', '--scopes', 'all'], d.env);
  if (admin.code !== 0) throw new Error(`admin-key create failed: ${admin.stderr}`);
  const adminKey = (admin.json as { key: string }).key;
  const created = await http(d.apiUrl, 'POST', '/v2/domains', { key: adminKey, body: { name: domain } });
  if (created.status !== 201) throw new Error(`domain create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const domainId = (created.body as { data: { id: string } }).data.id;
  const store = d.env.TERNMAIL_DATABASE_URL ? await openStore(d.dataDir, d.env.TERNMAIL_DATABASE_URL) : await openTestStore(d.dataDir);
  try {
    await store.domains.recordCheck(domainId, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  } finally {
    await store.close();
  }
  const key = await http(d.apiUrl, 'POST', '/v2/api-keys', { key: adminKey, body: { name: 'harness' } });
  const keyData = (key.body as { data?: { api_key?: string; id: number } } | undefined)?.data;
  if (!keyData?.api_key) throw new Error(`sending key create failed: ${key.status} ${JSON.stringify(key.body)}`);
  return { accountId, adminKey, sendingKey: keyData.api_key, sendingKeyId: keyData.id, domain, domainId };
}

/** Kills Redis, waits, optionally wipes its dir, and starts it again on the same port. */
async function redisOutage(redis: TestRedis, downMs: number, restart: 'from-aof' | 'empty'): Promise<void> {
  const args = redis.process.spawnargs;
  const dir = args[args.indexOf('--dir') + 1]!;
  await new Promise<void>((resolve) => {
    if (redis.process.exitCode !== null || redis.process.signalCode !== null) return resolve();
    redis.process.once('exit', () => resolve());
    redis.process.kill('SIGKILL');
  });
  await new Promise((r) => setTimeout(r, downMs));
  if (restart === 'empty') for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  await redis.restart();
}

async function stopProcess(p: LongRunning | null, graceMs: number): Promise<void> {
  if (!p || p.exited()) return;
  if (graceMs > 0) await stopChild(p.child, graceMs);
  else await p.stop('SIGKILL').catch(() => undefined);
}

/** Numbers the extra nodes' hostnames (mx2.tern.test, …): counted per test process, so concurrent adds differ. */
let extraNodes = 1;

const spawnOptions = (dataDir: string, role: Role, o: DeploymentOptions) => ({
  nodeArgs: o.nodeArgs?.(role),
  logFile: o.logToFiles ? join(dataDir, `${role}.log`) : undefined,
});

/** A data dir for another machine: the deployment's config file and master key (made now if no process made it yet). */
function nodeDataDir(dataDir: string, n: number): string {
  loadSecretBox(dataDir);
  const dir = mkdtempSync(join(tmpdir(), `tern-node${n}-`));
  mkdirSync(join(dir, 'keys'), { mode: 0o700 });
  copyFileSync(masterKeyFile(dataDir), masterKeyFile(dir));
  copyFileSync(join(dataDir, 'ternmail.json'), join(dir, 'ternmail.json'));
  return dir;
}

async function addNode(d: Deployment, role: Role, n: number, o: DeploymentOptions): Promise<ExtraNode> {
  const dataDir = nodeDataDir(d.dataDir, n);
  const port = await ports();
  const hostname = `mx${n}.tern.test`;
  const env = {
    ...deploymentEnv(dataDir, d.redis, d.dns, port, o),
    TERNMAIL_PUBLIC_HOSTNAME: hostname,
  };
  const node: ExtraNode = {
    role,
    process: spawnTernmail([role], env, spawnOptions(dataDir, role, o)),
    dataDir,
    env,
    apiUrl: `http://127.0.0.1:${port.api}`,
    starttlsPort: port.starttls,
    hostname,
  };
  try {
    if (role === 'api') await waitForApi(node.apiUrl, node.process, 60_000);
    else await waitForGreeting(port.starttls, node.process, 60_000);
  } catch (err) {
    await stopProcess(node.process, 0);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return node;
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), `tern-${options.name ?? 'proc'}-`));
  writeFileSync(join(dataDir, 'ternmail.json'), JSON.stringify(options.config ?? {}));
  const [redis, dns] = await startServices(options.redisAppendOnly ?? true).catch((err: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const port = await ports();
  const env = deploymentEnv(dataDir, redis, dns, port, { ...options, env: { ...(options.databaseUrl ? {} : await testEngineEnv(dataDir)), ...options.env } });
  const spawnRole = (role: Role) => spawnTernmail([role], env, spawnOptions(dataDir, role, options));
  const stores: Store[] = [];
  const extra: ExtraNode[] = [];
  const d: Deployment = {
    dataDir,
    env,
    redis,
    dns,
    apiUrl: `http://127.0.0.1:${port.api}`,
    starttlsPort: port.starttls,
    tlsPort: port.tls,
    metricsPort: port.metrics,
    apiMetricsUrl: `http://127.0.0.1:${port.apiMetrics}`,
    mta: null,
    api: null,
    async startMta() {
      d.mta = spawnRole('mta');
      await waitForGreeting(port.starttls, d.mta, 60_000);
      return d.mta;
    },
    async startApi() {
      d.api = spawnRole('api');
      await waitForApi(d.apiUrl, d.api, 60_000);
      return d.api;
    },
    async killMta() {
      if (d.mta && !d.mta.exited()) await d.mta.stop('SIGKILL');
    },
    redisOutage: (downMs, restart) => redisOutage(redis, downMs, restart),
    sender: (domain, o = {}) => createSender(d, domain, o),
    async addNode(role) {
      const node = await addNode(d, role, ++extraNodes, options);
      extra.push(node);
      return node;
    },
    async store() {
      if (!stores.length) stores.push(options.databaseUrl ? await openStore(dataDir, options.databaseUrl) : await openTestStore(dataDir));
      return stores[0]!;
    },
    async close({ graceMs = 0, keepData = false } = {}) {
      await Promise.all([stopProcess(d.mta, graceMs), stopProcess(d.api, graceMs), ...extra.map((x) => stopProcess(x.process, graceMs))]);
      for (const s of stores) await s.close().catch(() => undefined);
      await dns.close();
      await redis.stop();
      if (!keepData) for (const dir of [dataDir, ...extra.map((x) => x.dataDir)]) rmSync(dir, { recursive: true, force: true });
    },
  };
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  return d;
}
