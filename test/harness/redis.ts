// A real redis-server for one test file or benchmark: free loopback port, temp dir, stopped at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { waitForPong } from '../../shared/redis.js';

export interface TestRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
  /** Starts it again on the same port and dir (after a stop, to simulate a Redis restart). */
  restart(): Promise<void>;
}

function waitReady(port: number): Promise<void> {
  return waitForPong({ port, host: '127.0.0.1' }, { timeoutMs: 10_000, intervalMs: 50, name: `redis-server on ${port}` });
}

/** Every redis-server a test file started and has not stopped: killed when the file's process exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisOptions {
  /** Keep an append-only file, so that a restart finds the data (tests of outages); benchmarks turn it off. */
  appendOnly?: boolean;
}

export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-redis-'));
  const port = await freePort();
  const appendOnly = (options.appendOnly ?? true) ? 'yes' : 'no';
  const launch = () => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', appendOnly], {
      stdio: 'ignore',
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    return child;
  };
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  };
  const redis: TestRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: launch(),
    async stop() {
      await kill(redis.process);
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await kill(redis.process);
      redis.process = launch();
      await waitReady(port);
    },
  };
  await waitReady(port);
  return redis;
}
