// Runs the built `ternmail` command (dist/shared/cli/ternmail.js) as real processes, as an operator or a
// service manager would: one-shot CLI commands, and long-running ones (start, mta, api) waited on until
// they listen. Rebuild dist/ first (`npm test` does). Tests and benchmarks both start Tern through here.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { projectPath } from '../../shared/paths.js';
import { pause } from './wait.js';

export const ternmailJs = projectPath('dist', 'shared', 'cli', 'ternmail.js');

/**
 * What a ternmail process never inherits from the process that starts it: our own settings (each run names
 * its own), and the test runner's (a process under test runs as production runs it; NODE_OPTIONS, through
 * which tap loads its process tracker, is taken out by nodeWithout below).
 */
const INHERITED_NOT = /^(TERNMAIL_|NODE_V8_COVERAGE$|_TAPJS_|TAP)/;

/**
 * Node's command line (run by ENV) without NODE_OPTIONS. Clearing it in the environment is not enough under tap: its
 * process tracker wraps child_process and puts itself back in NODE_OPTIONS, so `env -u` (which then execs
 * node: same pid, same signals) takes it out last.
 */
const ENV = '/usr/bin/env';
const nodeWithout = (argv: string[]): string[] => ['-u', 'NODE_OPTIONS', process.execPath, ...argv];

/** This process's environment without what INHERITED_NOT names, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!INHERITED_NOT.test(k)) env[k] = v;
  return { ...env, TERNMAIL_LOG_LEVEL: process.env.TERN_TEST_LOG ?? 'warn', ...extra };
}

/**
 * What the product printed or answered as JSON, untyped on purpose: a test reads it as data and checks its
 * shape with tap's assertions, where a cast to the expected shape would assume what the test is there to check.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one place the harness leaves JSON untyped, see above
export type UntypedJson = any;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is. */
  json: UntypedJson;
}

/** `script`: another copy of the built command (a test that changes the shipped policy files runs a copy of the package). */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000, script = ternmailJs): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ENV, nodeWithout([script, ...args]), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

export interface LongRunning {
  child: ChildProcess;
  pid: number;
  /** Its standard output so far (with `logFile`: the file, where both streams go). */
  output(): string;
  errors(): string;
  /** Resolves when `test` accepts the output so far. */
  waitForOutput(test: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code and signal, or rejects after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  exited(): boolean;
}

export interface SpawnOptions {
  /** Node options before the script (the benchmarks give the service flags of shared/node-flags.ts). */
  nodeArgs?: string[];
  /** Append stdout and stderr to this file instead of keeping them in memory (long benchmark runs). */
  logFile?: string;
}

/** Every ternmail process started here and still running: killed when this process exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts the process with its output either collected in memory or appended to `logFile`. */
function launch(args: string[], env: NodeJS.ProcessEnv, o: SpawnOptions): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const argv = [...(o.nodeArgs ?? []), ternmailJs, ...args];
  if (o.logFile) {
    const fd = openSync(o.logFile, 'a');
    const child = spawn(ENV, nodeWithout(argv), { env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const file = o.logFile;
    return { child, stdout: () => readFileSync(file, 'utf8'), stderr: () => '' };
  }
  const child = spawn(ENV, nodeWithout(argv), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

export function spawnTernmail(args: string[], env: NodeJS.ProcessEnv, options: SpawnOptions = {}): LongRunning {
  const { child, stdout, stderr } = launch(args, env, options);
  running.add(child);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const proc: LongRunning = {
    child,
    pid: child.pid!,
    output: stdout,
    errors: stderr,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    async waitForOutput(test, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (test(stdout())) return stdout();
        if (proc.exited()) throw new Error(`ternmail ${args.join(' ')} exited early (${child.exitCode}):\n${stdout()}\n${stderr()}`);
        await pause(50);
      }
      throw new Error(`timed out waiting for output of ternmail ${args.join(' ')}:\n${stdout()}\n${stderr()}`);
    },
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      const started = Date.now();
      if (!proc.exited()) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`ternmail ${args.join(' ')} did not stop within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const result = await Promise.race([exit, timeout]);
        return { ...result, ms: Date.now() - started };
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return proc;
}

/** The last lines of a process's output, for an error message. */
const tail = (p: LongRunning) => `${p.output()}\n${p.errors()}`.trim().split('\n').slice(-40).join('\n');

/** What an HTTP request to the API gave back. */
export interface HttpResult {
  status: number;
  headers: Headers;
  body: UntypedJson;
}

/** One HTTP request to a running API, JSON in and out. */
export async function http(base: string, method: string, path: string, o: { key?: string; body?: unknown; teamId?: number } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  // X-Account-Id names the team to act on (the header keeps its old name).
  if (o.teamId !== undefined) headers['x-account-id'] = String(o.teamId);
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/** Waits until the API at `base` answers HTTP at all; fails at once if its process exits. */
export async function waitForApi(base: string, process?: LongRunning, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process?.exited()) throw new Error(`the API process exited:\n${tail(process)}`);
    try {
      if ((await fetch(`${base}/v2/openapi.json`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await pause(100);
  }
  throw new Error(`the API at ${base} did not answer within ${timeoutMs} ms${process ? `:\n${tail(process)}` : ''}`);
}

/** Resolves when a TCP connection to `port` gets a greeting byte, so the MTA's listener is really up. */
export async function waitForGreeting(port: number, mta: LongRunning, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (mta.exited()) throw new Error(`the MTA exited:\n${tail(mta)}`);
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
      socket.setTimeout(2_000, () => (socket.destroy(), resolve(false)));
    });
    if (greeted) return;
    await pause(50);
  }
  throw new Error(`the MTA did not greet on ${port} within ${timeoutMs} ms:\n${tail(mta)}`);
}
