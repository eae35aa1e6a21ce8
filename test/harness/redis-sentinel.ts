// Redis behind Sentinel for one test file: a primary, a replica of it (--replicaof) and one sentinel watching
// them (quorum 1, a master down after 1 s), each a real redis-server on a free loopback port in a temp dir.
// killPrimary() is the failover: the primary gets SIGKILL and the sentinel promotes the replica; after it,
// restartPrimaryAsReplica() and switchover() make a planned failover back, with both servers up.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { waitForPong } from '../../shared/redis.js';
import { freePorts } from './ports.js';
import { until } from './wait.js';

export interface SentinelNode {
  port: number;
  process: ChildProcess;
}

export interface SentinelGroup {
  /** The master group's name the sentinel monitors. */
  name: string;
  /** The sentinel's address, host:port, as TERNMAIL_REDIS_SENTINELS takes it. */
  sentinelAddress: string;
  primary: SentinelNode;
  replica: SentinelNode;
  sentinel: SentinelNode;
  /** The master the sentinel names now, host:port. */
  master(): Promise<string>;
  /** SIGKILL of the primary; resolves once the sentinel names the replica as master, with how long that took. */
  killPrimary(timeoutMs?: number): Promise<{ promotedAfterMs: number }>;
  /** Starts the killed primary again as a replica of the promoted one; resolves once it is in sync and the sentinel sees it. */
  restartPrimaryAsReplica(): Promise<void>;
  /** A planned failover (SENTINEL FAILOVER, every server up): resolves once the sentinel names `to` as master. */
  switchover(to: SentinelNode, timeoutMs?: number): Promise<{ switchedAfterMs: number }>;
  stop(): Promise<void>;
}

/** Every redis-server started here and not stopped: killed when the test file's process exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function launch(args: string[]): ChildProcess {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Asks the redis-server on `port` one command, on a connection of its own, closed after. */
async function ask(port: number, args: [string, ...string[]]): Promise<unknown> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(...args);
  } finally {
    client.disconnect();
  }
}

/** Polls `check` every 100 ms until it holds (a server still starting fails it); throws naming `what` after `timeoutMs`. */
const waitUntil = (what: string, check: () => Promise<boolean>, timeoutMs: number) => until(what, () => check().catch(() => false), timeoutMs, 100);

/** The fields of one entry of SENTINEL REPLICAS (a flat list of names and values). */
function fields(entry: unknown): Map<string, string> {
  const list = entry as string[];
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) map.set(list[i]!, list[i + 1]!);
  return map;
}

function sentinelConfig(port: number, dir: string, name: string, primaryPort: number): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${dir}`,
    `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
    `sentinel down-after-milliseconds ${name} 1000`,
    `sentinel failover-timeout ${name} 10000`,
    `sentinel parallel-syncs ${name} 1`,
    '',
  ].join('\n');
}

const ping = (port: number) => waitForPong({ port, host: '127.0.0.1' }, { timeoutMs: 10_000, intervalMs: 50, name: `redis-server on ${port}` });

/** A replica in sync with its master, and seen by the sentinel as a replica it could promote. */
async function replicaReady(group: SentinelGroup, replica: SentinelNode): Promise<void> {
  await waitUntil(`the replica on ${replica.port} to sync`, async () => /master_link_status:up/.test(String(await ask(replica.port, ['INFO', 'replication']))), 15_000);
  await waitUntil(
    `the sentinel to see the replica on ${replica.port}`,
    async () => {
      const replicas = (await ask(group.sentinel.port, ['SENTINEL', 'REPLICAS', group.name])) as unknown[];
      return replicas.map(fields).some((r) => r.get('port') === String(replica.port) && !/s_down|disconnected/.test(r.get('flags') ?? ''));
    },
    20_000,
  );
}

/** The three servers up, the replica in sync, and the sentinel seeing the replica, ready to promote it. */
async function groupReady(group: SentinelGroup): Promise<void> {
  await Promise.all([ping(group.primary.port), ping(group.replica.port), ping(group.sentinel.port)]);
  await replicaReady(group, group.replica);
}

export async function startSentinelGroup(name = 'mymaster'): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-sentinel-'));
  const [primaryPort, replicaPort, sentinelPort] = (await freePorts(3)) as [number, number, number];
  const server = (port: number, extra: string[]) =>
    launch(['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', `dump-${port}.rdb`, '--save', '', '--appendonly', 'no', ...extra]);
  const configFile = join(dir, 'sentinel.conf');
  writeFileSync(configFile, sentinelConfig(sentinelPort, dir, name, primaryPort));
  const group: SentinelGroup = {
    name,
    sentinelAddress: `127.0.0.1:${sentinelPort}`,
    primary: { port: primaryPort, process: server(primaryPort, []) },
    replica: { port: replicaPort, process: server(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]) },
    sentinel: { port: sentinelPort, process: launch([configFile, '--sentinel']) },
    async master() {
      const [host, port] = (await ask(sentinelPort, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name])) as [string, string];
      return `${host}:${port}`;
    },
    async killPrimary(timeoutMs = 30_000) {
      const killedAt = Date.now();
      await kill(group.primary.process);
      await waitUntil('the sentinel to promote the replica', async () => (await group.master()) === `127.0.0.1:${replicaPort}`, timeoutMs);
      return { promotedAfterMs: Date.now() - killedAt };
    },
    async restartPrimaryAsReplica() {
      group.primary.process = server(primaryPort, ['--replicaof', '127.0.0.1', String(replicaPort)]);
      await ping(primaryPort);
      await replicaReady(group, group.primary);
    },
    async switchover(to, timeoutMs = 30_000) {
      const startedAt = Date.now();
      await ask(sentinelPort, ['SENTINEL', 'FAILOVER', name]);
      await waitUntil(`the sentinel to name ${to.port} as master`, async () => (await group.master()) === `127.0.0.1:${to.port}`, timeoutMs);
      return { switchedAfterMs: Date.now() - startedAt };
    },
    async stop() {
      await Promise.all([group.sentinel, group.replica, group.primary].map((n) => kill(n.process)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await groupReady(group);
  } catch (err) {
    await group.stop();
    throw err;
  }
  return group;
}
