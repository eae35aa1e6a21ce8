// Shared pieces of the benchmarks: temp dirs and child processes that are always cleaned up, a Redis and a
// DNS server on loopback, Tern's two processes, the account/domain/key set-up, and figures printing.
// Benchmarks print figures; they never pass or fail on them.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { connect, createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as dnsPacket from 'dns-packet';
import { stopChild } from '../shared/stop-child.js';
import { serviceNodeFlags } from '../shared/node-flags.js';

/** dist/ (the compiled tree): dist/bench/lib.js is one level below it. */
export const DIST = fileURLToPath(new URL('..', import.meta.url));
export const TERNMAIL = join(DIST, 'bin', 'ternmail.js');
export const benchScript = (name: string): string => join(DIST, 'bench', `${name}.js`);

// ---------------------------------------------------------------------------------------------------------
// Clean-up: every process and directory a benchmark makes is registered here and removed at the end, on an
// error, on SIGINT/SIGTERM, and when the benchmark's time limit passes.

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
const closers: Array<() => Promise<void> | void> = [];
const keep = process.env.BENCH_KEEP === '1';

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function onCleanup(fn: () => Promise<void> | void): void {
  closers.push(fn);
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tern-bench-${prefix}-`));
  dirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

export { stopChild };

let cleaning: Promise<void> | null = null;

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of closers.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // best effort
      }
    }
    await Promise.all([...children].map((c) => stopChild(c, 3000)));
    if (!keep) for (const dir of [...dirs]) removeDir(dir);
    else if (dirs.size) process.stderr.write(`BENCH_KEEP=1: kept ${[...dirs].join(' ')}\n`);
  })();
  return cleaning;
}

// Last resort when the process leaves without the async clean-up: kill what is left, remove the dirs.
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (!keep) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs a benchmark's main: a time limit (BENCH_TIMEOUT_S, or `defaultTimeoutS`), clean-up on every exit path,
 * and the result printed as one `BENCH_RESULT {json}` line that run.ts collects.
 */
export function runBench(name: string, defaultTimeoutS: number, main: () => Promise<BenchResult>): void {
  const limitS = Number(process.env.BENCH_TIMEOUT_S ?? defaultTimeoutS);
  const fail = (why: string) => {
    process.stderr.write(`\n[${name}] ${why}\n`);
    void cleanup().finally(() => process.exit(1));
  };
  const timer = setTimeout(() => fail(`time limit of ${limitS}s passed; stopping`), limitS * 1000);
  timer.unref();
  process.once('SIGINT', () => fail('interrupted'));
  process.once('SIGTERM', () => fail('terminated'));
  const [l1, l5] = loadavg();
  log(`[${name}] load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min) on this machine`);
  main().then(
    async (result) => {
      await cleanup();
      process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (err: Error) => fail(`failed: ${err.stack ?? err.message}`),
  );
}

export interface BenchRow {
  /** What was measured, with its N and concurrency. */
  metric: string;
  value: string;
  target?: string;
}

export interface BenchResult {
  bench: string;
  rows: BenchRow[];
}

// ---------------------------------------------------------------------------------------------------------
// Small utilities.

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function log(line: string): void {
  process.stdout.write(line + '\n');
}

export function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return Math.floor(n);
}

export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Sorted-sample percentile (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Resident memory of a process, in MB, from /proc/<pid>/status (VmRSS; VmHWM is its peak). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

const CLK_TCK = 100;

/** CPU seconds (user + system) a process has used so far, its threads included. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Redis and DNS on loopback.

function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      got += d.toString();
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
  });
}

export async function startRedis(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = track(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
  );
  await waitUntil('redis-server', () => redisPing(port), 10_000);
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** A UDP DNS server answering `dest.test` MX → `mx.dest.test`, A 127.0.0.1; everything else NXDOMAIN. */
export async function startDns(): Promise<string> {
  const zone: Record<string, dnsPacket.Answer[]> = {
    'dest.test/MX': [{ name: 'dest.test', type: 'MX', class: 'IN', ttl: 3600, data: { preference: 10, exchange: 'mx.dest.test' } }],
    'mx.dest.test/A': [{ name: 'mx.dest.test', type: 'A', class: 'IN', ttl: 3600, data: '127.0.0.1' }],
  };
  const known = new Set(['dest.test', 'mx.dest.test']);
  const port = await freePort();
  const udp = createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    const name = (q?.name ?? '').toLowerCase().replace(/\.$/, '');
    const answers = q ? (zone[`${name}/${q.type}`] ?? []) : [];
    // NOERROR with no answers for a known name (its AAAA), NXDOMAIN for the rest.
    const rcode = known.has(name) ? 0 : 3;
    const reply = dnsPacket.encode({ id: query.id, type: 'response', flags: dnsPacket.AUTHORITATIVE_ANSWER | rcode, questions: query.questions, answers });
    udp.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', () => resolve()));
  onCleanup(() => new Promise<void>((resolve) => udp.close(() => resolve())));
  return `127.0.0.1:${port}`;
}

// ---------------------------------------------------------------------------------------------------------
// Tern.

export interface TernEnv {
  dataDir: string;
  env: Record<string, string>;
  apiUrl: string;
  starttlsPort: number;
  metricsPort: number;
}

/**
 * The environment of one Tern installation in a temp dir: its own Redis, free loopback ports, and a config
 * file with `config` (e.g. delivery concurrency). The processes are started with startTern.
 */
export async function ternEnv(name: string, o: { remotePort: number; dns: string; config?: Record<string, unknown> }): Promise<TernEnv> {
  const dataDir = tempDir(name);
  const redis = await startRedis(dataDir);
  const apiPort = await freePort();
  const starttlsPort = await freePort();
  const metricsPort = await freePort();
  const configFile = join(dataDir, 'bench-config.json');
  writeFileSync(configFile, JSON.stringify(o.config ?? {}));
  const env = {
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_HOST: '127.0.0.1',
    TERNMAIL_API_PORT: String(apiPort),
    TERNMAIL_DNS_SERVERS: o.dns,
    TERNMAIL_REMOTE_SMTP_PORT: String(o.remotePort),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttlsPort),
    TERNMAIL_SMTP_TLS_PORTS: String(await freePort()),
    TERNMAIL_MX_PORT: String(await freePort()),
    TERNMAIL_METRICS_PORT: String(metricsPort),
    TERNMAIL_CONFIG: configFile,
    TERNMAIL_LOG_LEVEL: 'warn',
    // The domain verifier must not undo the bench's "verified" while it runs.
    TERNMAIL_VERIFY_INTERVAL_S: '86400',
  };
  return { dataDir, env, apiUrl: `http://127.0.0.1:${apiPort}`, starttlsPort, metricsPort };
}

/** Runs an operator command of the ternmail CLI and returns its JSON answer. */
export function cli(t: TernEnv, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TERNMAIL, ...args], { env: { ...process.env, ...t.env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`ternmail ${args.join(' ')}: ${stderr || err.message}`));
      resolve(JSON.parse(stdout));
    });
  });
}

export interface TernProcess {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `ternmail mta` or `ternmail api`, its output in <dataDir>/<role>.log, and waits until it listens. */
export async function startTern(t: TernEnv, role: 'mta' | 'api'): Promise<TernProcess> {
  const logFile = join(t.dataDir, `${role}.log`);
  const fd = openSync(logFile, 'a');
  // Started as `ternmail start` and the systemd units start them (serviceNodeFlags), plus BENCH_TERN_NODE_ARGS:
  // node options for Tern's processes only (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
  const nodeArgs = (process.env.BENCH_TERN_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = track(spawn(process.execPath, [...serviceNodeFlags(role), ...nodeArgs, TERNMAIL, role], { env: { ...process.env, ...t.env }, stdio: ['ignore', fd, fd] }));
  closeSync(fd);
  let exited = false;
  child.once('exit', () => (exited = true));
  const port = role === 'mta' ? t.starttlsPort : Number(t.env.TERNMAIL_API_PORT);
  try {
    await waitUntil(`ternmail ${role} to listen`, async () => {
      if (exited) throw new Error(`ternmail ${role} exited at start`);
      return portOpen(port);
    }, 60_000, 100);
  } catch (err) {
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
    throw new Error(`${(err as Error).message}\n--- ${role}.log ---\n${tail}`);
  }
  return { child, pid: child.pid!, stop: () => stopChild(child, 30_000) };
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface JsonReply {
  status: number;
  body: any;
}

/** One JSON request to the API (loopback, keep-alive). */
export function api(baseUrl: string, method: string, path: string, key: string, body?: unknown): Promise<JsonReply> {
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { authorization: `Bearer ${key}` };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Sender {
  accountId: number;
  adminKey: string;
  sendingKey: string;
  sendingKeyId: number;
  domainId: string;
}

/**
 * An account with a high rate limit and many credits, the verified domain example.com (marked verified in
 * the store, as the tests do: there is no DNS for it) and a sending key. Needs the API running.
 */
export async function setUpSender(t: TernEnv): Promise<Sender> {
  const account = await cli(t, ['account', 'create', '--name', 'Bench', '--credits', '100000000', '--limit-per-second', '1000000']);
  const { key: adminKey } = await cli(t, ['admin-key', 'create', '--account', String(account.id), '--title', 'bench', '--scopes', 'all']);
  const domain = await api(t.apiUrl, 'POST', '/v2/domains', adminKey, { name: 'example.com' });
  if (domain.status >= 300) throw new Error(`POST /v2/domains: ${domain.status} ${JSON.stringify(domain.body)}`);
  const domainId = domain.body.data.id as string;
  const { openStore } = await import('../store/index.js');
  const store = await openStore(t.dataDir);
  try {
    await store.domains.recordCheck(domainId, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  } finally {
    await store.close();
  }
  const key = await api(t.apiUrl, 'POST', '/v2/api-keys', adminKey, { name: 'bench' });
  if (key.status >= 300) throw new Error(`POST /v2/api-keys: ${key.status} ${JSON.stringify(key.body)}`);
  return { accountId: account.id, adminKey, sendingKey: key.body.data.api_key, sendingKeyId: key.body.data.id, domainId };
}

/**
 * What the delivery benches start from: the loopback DNS, Tern's MTA and API delivering to `remotePort`
 * (delivery caps raised for load), and a sender.
 */
export async function startDeployment(name: string, remotePort: number): Promise<{ t: TernEnv; mta: TernProcess; api: TernProcess; sender: Sender }> {
  const dns = await startDns();
  const t = await ternEnv(name, { remotePort, dns, config: { delivery: { concurrency: 200, perDomainConcurrency: 50 } } });
  const mta = await startTern(t, 'mta');
  const api = await startTern(t, 'api');
  return { t, mta, api, sender: await setUpSender(t) };
}

/** One labelled family of the MTA's /metrics, e.g. tern_queue_recipients by state: {queued: 3, deferred: 9}. */
export async function mtaMetric(t: TernEnv, name: string, label: string): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${t.metricsPort}/metrics`);
  const text = await res.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{${label}="(\\w+)"\\} (\\d+)`, 'gm'))) out[m[1]!] = Number(m[2]);
  return out;
}

/** The MTA's queue depth by recipient state. */
export const queueDepth = (t: TernEnv) => mtaMetric(t, 'tern_queue_recipients', 'state');

// ---------------------------------------------------------------------------------------------------------
// Message bodies.

const WORDS = 'the quick brown fox jumps over lazy dog mail transfer agent queue delivery receipt invoice order shipping account update'.split(' ');

/** About `bytes` of plain text in lines of at most 76 characters, none starting with a dot. */
export function filler(bytes: number, seed = 1): string {
  let s = seed;
  const lines: string[] = [];
  let total = 0;
  while (total < bytes) {
    let line = '';
    while (line.length < 70) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      line += (line ? ' ' : '') + WORDS[s % WORDS.length];
    }
    lines.push(line);
    total += line.length + 2;
  }
  return lines.join('\r\n');
}

/** A child process running one of the bench scripts, talking over IPC. */
export function forkScript(name: string, args: string[] = []): ChildProcess {
  return track(spawn(process.execPath, [benchScript(name), ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

/** Sends `msg` to a forked script and resolves with its first reply of type `reply`. */
export function ask<T = any>(child: ChildProcess, msg: { type: string; [k: string]: unknown }, reply: string, timeoutMs = 600_000): Promise<T> {
  const answer = nextMessage<T>(child, reply, timeoutMs);
  child.send(msg);
  return answer;
}

/** The first IPC message of type `type` from a forked script; an `error` message from it fails the wait. */
export function nextMessage<T = any>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: { type: string }) => {
      if (m?.type === type) done(null, m as T);
      else if (m?.type === 'error') done(new Error((m as unknown as { message: string }).message));
    };
    const onExit = () => done(new Error(`child exited before its ${type} message`));
    function done(err: Error | null, value?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(value!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
