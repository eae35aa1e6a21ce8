// Runs the built `ternmail` command (dist/bin/ternmail.js) as a real process, as an operator or a
// service manager would. Rebuild dist/ first (`npm test` does).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ternmailJs = join(repoRoot, 'dist', 'bin', 'ternmail.js');

/** A temp dir with an empty config file, so that no /etc/ternmail/ternmail.json reaches the test. */
export function tempHome(prefix = 'tern-cli-'): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const configFile = join(dir, 'empty.json');
  writeFileSync(configFile, '{}');
  return { dir, configFile };
}

/** The test's own environment without any TERNMAIL_* variable, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TERNMAIL_')) env[k] = v;
  return { ...env, TERNMAIL_LOG_LEVEL: process.env.TERN_TEST_LOG ?? 'warn', ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is. */
  json: any;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ternmailJs, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      let json: unknown = undefined;
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
  output(): string;
  errors(): string;
  /** Resolves when `test` accepts the output so far. */
  waitForOutput(test: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code and signal, or rejects after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  exited(): boolean;
}

export function spawnTernmail(args: string[], env: NodeJS.ProcessEnv): LongRunning {
  const child = spawn(process.execPath, [ternmailJs, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const running: LongRunning = {
    child,
    pid: child.pid!,
    output: () => stdout,
    errors: () => stderr,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    async waitForOutput(test, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (test(stdout)) return stdout;
        if (running.exited()) throw new Error(`ternmail ${args.join(' ')} exited early (${child.exitCode}):\n${stdout}\n${stderr}`);
        await sleep(50);
      }
      throw new Error(`timed out waiting for output of ternmail ${args.join(' ')}:\n${stdout}\n${stderr}`);
    },
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      const started = Date.now();
      if (!running.exited()) child.kill(signal);
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
  return running;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

/** Process ids whose parent is `pid` (read from /proc, so no `ps` is needed). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces; the parent pid is the 2nd field after it.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Whether a process is still running (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP request to a running API, JSON in and out. */
export async function http(
  base: string,
  method: string,
  path: string,
  o: { key?: string; body?: unknown; accountId?: number } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.accountId !== undefined) headers['x-account-id'] = String(o.accountId);
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  let body: unknown = undefined;
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
    if (process?.exited()) throw new Error(`the API process exited:\n${process.output()}\n${process.errors()}`);
    try {
      if ((await fetch(`${base}/v2/openapi.json`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the API at ${base} did not answer within ${timeoutMs} ms`);
}

export const fileExists = existsSync;

/** Running processes whose command line contains `text` (for example a data dir in redis-server's socket path). */
export function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map(Number)
    .filter((pid) => alive(pid) && commandLine(pid).includes(text));
}
