// The built `ternmail` command as a real process (the harness's, shared with the benchmarks), and what
// tests look at around it: temp homes, waiting, the process tree in /proc.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pause } from '../harness/wait.js';

export { cleanEnv, http, runCli, spawnTernmail, ternmailJs, waitForApi, type CliResult, type LongRunning, type HttpResult } from '../harness/ternmail.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A temp dir with an empty config file, so that no /etc/ternmail/ternmail.json reaches the test. */
export function tempHome(prefix = 'tern-cli-'): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const configFile = join(dir, 'empty.json');
  writeFileSync(configFile, '{}');
  return { dir, configFile };
}

export const sleep = pause;

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
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

export const fileExists = existsSync;

/** Running processes whose command line contains `text` (for example a data dir in redis-server's socket path). */
export function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map(Number)
    .filter((pid) => alive(pid) && commandLine(pid).includes(text));
}
