// `ternmail start` without TERNMAIL_REDIS_URL (nor sentinels): a redis-server of our own on a unix socket in the data
// dir, with AOF on (the schedule survives a restart; it can also be rebuilt from SQLite).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stopChild } from '../stop-child.js';
import type { Config, RedisTarget } from '../config.js';
import { waitForPong } from '../redis.js';

export interface ManagedRedis {
  url: string;
  stop(): Promise<void>;
}

function waitForPing(socket: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  return waitForPong(
    { path: socket },
    {
      timeoutMs,
      intervalMs: 100,
      name: 'redis-server',
      canProbe: () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
        return existsSync(socket);
      },
    },
  );
}

/** Where `ternmail start` puts its own Redis's unix socket: the operator commands reach it there. */
export const managedRedisSocket = (dataDir: string): string => join(dataDir, 'redis', 'redis.sock');

/** The Redis an operator command reaches: the configured one, else `ternmail start`'s own on its socket (absent when it is not running). */
export const operatorRedis = (config: Config): RedisTarget => config.redis ?? { kind: 'url', url: `unix://${managedRedisSocket(config.dataDir)}` };

export async function startManagedRedis(dataDir: string): Promise<ManagedRedis> {
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = managedRedisSocket(dataDir);
  // A unix socket path is limited to 107 bytes on Linux.
  if (Buffer.byteLength(socket) > 107) {
    throw new Error(`the data dir path is too long for Redis's unix socket (${socket}); use a shorter TERNMAIL_DATA_DIR or set TERNMAIL_REDIS_URL`);
  }
  const args = ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no'];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) => reject(new Error(`cannot start redis-server (${err.message}); install it: apt-get install -y redis-server`)));
  });
  // SIGTERM makes Redis flush its AOF and exit; a Redis that hangs is killed after 10 s.
  const stop = () => stopChild(child, 10_000);
  try {
    await waitForPing(socket, child, 15_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `unix://${socket}`, stop };
}
