// Shared pieces of the benchmarks: child processes and dirs that are always cleaned up, the deployment they
// measure (the harness's: Redis, loopback DNS, Tern's two processes, a sender; see harness/), and figures
// printing. Benchmarks print figures; they never pass or fail on them.
import { runCli } from '../test/harness/ternmail.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDeployment, type Deployment, type Sender } from '../test/harness/deployment.js';
import { startPostgres, type TestPostgres } from '../test/harness/postgres.js';
import type { LongRunning } from '../test/harness/ternmail.js';
import { stopChild } from '../shared/stop-child.js';
import { serviceNodeFlags } from '../shared/node-flags.js';

/** dist/ (the compiled tree): dist/bench/lib.js is one level below it. */
const DIST = fileURLToPath(new URL('..', import.meta.url));
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

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

export { stopChild };

/**
 * A new temp dir under the system temp dir, removed at clean-up (kept with BENCH_KEEP=1); `mode` 0o755 lets
 * daemons that drop privileges (Postfix, OpenDKIM) reach the files in it.
 */
export function benchTempDir(prefix: string, mode = 0o700): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  chmodSync(dir, mode);
  dirs.add(dir);
  return dir;
}

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
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Resident memory of a process, in MB, from /proc/<pid>/status (VmRSS; VmHWM is its peak). */
export { memoryOf } from '../test/harness/process-memory.js';

const CLK_TCK = 100;

/** CPU seconds (user + system) a process has used so far, its threads included. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime + stime, and the children's it has waited for (a worker that died), plus the live children's: an MTA
    // with workers (mta.workers) is its supervisor and the workers it forked.
    const own = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return own / CLK_TCK + childrenOf(pid).reduce((sum, child) => sum + cpuSecondsOf(child), 0);
  } catch {
    return NaN;
  }
}

/** The live child processes of `pid` (its main thread's, which is where node forks). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tern.

export type { Deployment, Sender };

/**
 * The store Tern runs on in a benchmark: BENCH_ENGINE=sqlite (the default: a file in the data dir) or postgres (a
 * cluster started for the benchmark in a temp dir, with PostgreSQL's default durability settings, and a fresh
 * database per deployment).
 */
export const benchEngine: 'sqlite' | 'postgres' = (() => {
  const engine = process.env.BENCH_ENGINE ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_ENGINE=${engine}: choose sqlite or postgres`);
  return engine;
})();
/** MTA worker processes (BENCH_MTA_WORKERS, the MTA's `mta.workers`: 1, the default, runs no supervisor). */
export const mtaWorkers = envInt('BENCH_MTA_WORKERS', 1);
/** How the engine (and the MTA's workers, when more than one) shows in figures' labels. */
export const engineLabel = (benchEngine === 'postgres' ? 'PostgreSQL' : 'SQLite') + (mtaWorkers > 1 ? `, ${mtaWorkers} MTA workers` : '');

let postgres: Promise<TestPostgres> | null = null;

/** A new database on the benchmark's PostgreSQL cluster (started by the first call), or undefined on SQLite. */
async function benchDatabaseUrl(): Promise<string | undefined> {
  if (benchEngine === 'sqlite') return undefined;
  postgres ??= startPostgres({ durable: true }).then((cluster) => {
    onCleanup(() => cluster.stop());
    return cluster;
  });
  return (await postgres).createDatabase();
}

/** Node options of Tern's processes: those `ternmail start` and the systemd units give, plus BENCH_TERN_NODE_ARGS
 * (for Tern's processes only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
const ternNodeArgs = (role: 'mta' | 'api') => [...serviceNodeFlags(role), ...(process.env.BENCH_TERN_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)];

/**
 * One Tern installation in a temp dir on the BENCH_ENGINE store (the harness's deployment: its own Redis without an append-only file,
 * a DNS server answering dest.test MX mx.dest.test A 127.0.0.1, free loopback ports, the processes' output in
 * <dataDir>/mta.log and api.log) with `config` in its config file. Nothing is started yet; all is removed at
 * clean-up (BENCH_KEEP=1 keeps the dir).
 */
export async function benchDeployment(name: string, o: { remotePort: number; config?: Record<string, unknown> }): Promise<Deployment> {
  const databaseUrl = await benchDatabaseUrl();
  const d = await startDeployment({ name: `bench-${name}`, ...o, databaseUrl, nodeArgs: ternNodeArgs, logToFiles: true, redisAppendOnly: false });
  dirs.add(d.dataDir);
  onCleanup(() => d.close({ graceMs: 3000, keepData: true }));
  return d;
}

/** SIGTERM to a Tern process, SIGKILL if it is still there after 30 s. */
export const stopTern = (p: LongRunning) => stopChild(p.child, 30_000);

/** An account with a high rate limit and many credits, the verified domain example.com and a sending key. Needs the API running. */
export const benchSender = (d: Deployment) => d.sender('example.com', { name: 'Bench', credits: 100_000_000, limitPerSecond: 1_000_000 });

/**
 * What the delivery benches start from: Tern's MTA and API delivering to `remotePort` (delivery caps raised
 * for load), and a sender.
 */
export async function deliveryDeployment(name: string, remotePort: number): Promise<{ d: Deployment; mta: LongRunning; api: LongRunning; sender: Sender }> {
  const d = await benchDeployment(name, { remotePort, config: { delivery: { concurrency: 200, perDomainConcurrency: 50 }, mta: { workers: mtaWorkers } } });
  const mta = await d.startMta();
  const api = await d.startApi();
  return { d, mta, api, sender: await benchSender(d) };
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface JsonReply {
  status: number;
  body: unknown;
}

/** One JSON request to the API (loopback, keep-alive); `key` is a bearer key, or a whole `Basic …` authorization. */
export function api(baseUrl: string, method: string, path: string, key: string, body?: unknown): Promise<JsonReply> {
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { authorization: key.startsWith('Basic ') ? key : `Bearer ${key}` };
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

/** One labelled family of the MTA's /metrics, e.g. tern_queue_recipients by state: {queued: 3, deferred: 9}. */
export async function mtaMetric(d: Deployment, name: string, label: string): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${d.metricsPort}/metrics`);
  const text = await res.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{${label}="(\\w+)"\\} (\\d+)`, 'gm'))) out[m[1]!] = Number(m[2]);
  return out;
}

/** The MTA's queue depth by recipient state. */
export const queueDepth = (d: Deployment) => mtaMetric(d, 'tern_queue_recipients', 'state');

// ---------------------------------------------------------------------------------------------------------
// Message bodies.

const WORDS = 'the quick brown fox jumps over lazy dog mail transfer agent queue delivery receipt invoice order shipping account update'.split(' ');

/** About `bytes` of plain text in lines of at most 76 characters, none starting with a dot. */
export function filler(bytes: number, start = 1): string {
  let s = start;
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
export function ask<T = unknown>(child: ChildProcess, msg: { type: string; [k: string]: unknown }, reply: string, timeoutMs = 600_000): Promise<T> {
  const answer = nextMessage<T>(child, reply, timeoutMs);
  child.send(msg);
  return answer;
}

/** The first IPC message of type `type` from a forked script; an `error` message from it fails the wait. */
export function nextMessage<T = unknown>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
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

const PASSWORD = 'bench operator password';

/** An operator made with the CLI, its one-time password changed, and an application password for the routes. */
export async function operatorCredentials(baseUrl: string, env: NodeJS.ProcessEnv): Promise<string> {
  const email = 'operator@bench.test';
  const made = await runCli(['operator', 'create', '--email', email], env);
  if (made.code !== 0) throw new Error(`operator create: ${made.stderr}`);
  const oneTime = (made.json as { one_time_password: string }).one_time_password;
  const signIn = async (password: string) => {
    const res = await fetch(`${baseUrl}/api/tern-auth/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await res.json()) as { nonce: string };
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, nonce: body.nonce };
  };
  const call = async (s: { cookie: string; nonce: string }, path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: s.cookie, 'x-wp-nonce': s.nonce },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  await call(await signIn(oneTime), '/api/tern/v2/profile/update-password', { current_password: oneTime, new_password: PASSWORD });
  const app = await call(await signIn(PASSWORD), '/api/wp/v2/users/me/application-passwords', { name: 'bench' });
  return `Basic ${Buffer.from(`${email}:${String(app.password)}`).toString('base64')}`;
}
