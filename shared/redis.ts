// Connections to Redis (TCP, TLS, a unix socket, or the master of a group behind Sentinel), what a process says
// about the Redis it reaches, and the lock-release script every holder uses.
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from './config.js';
import { answersWithin } from './readiness.js';

/**
 * A master demoted to a replica (a failover, seen by a connection that outlived it) answers writes with READONLY:
 * reconnect (through the sentinels, to the new master) and send the command again there (2), rather than fail
 * every write until the connection happens to drop. Only behind Sentinel: a URL that names a replica would name it
 * again on every reconnect, and the command would go round for ever.
 */
const reconnectOnReadonly = (err: Error): 2 | false => (err.message.startsWith('READONLY') ? 2 : false);

/** ioredis's options for a master group behind Sentinel; it asks the sentinels again on every reconnect. */
function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>): RedisOptions {
  return {
    sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: target.name,
    role: 'master',
    db: target.db,
    ...(target.username === null ? {} : { username: target.username }),
    ...(target.password === null ? {} : { password: target.password }),
    ...(target.sentinelPassword === null ? {} : { sentinelPassword: target.sentinelPassword }),
    ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    // Listens for +switch-master on the sentinels, so a failover moves the connection at once, not at its next error.
    failoverDetector: true,
    reconnectOnError: reconnectOnReadonly,
  };
}

/**
 * Connects to the Redis of `where`: a redis:// URL or a unix:// (or bare) socket path, or a configured target
 * (the URL, or the sentinels of a master group). Commands issued in the same turn of the event loop (many
 * requests at once under load) go out in one write (auto-pipelining).
 */
export function connectRedis(where: string | RedisTarget, name: string, overrides: RedisOptions = {}): Redis {
  const target: RedisTarget = typeof where === 'string' ? { kind: 'url', url: where } : where;
  const options = { connectionName: name, maxRetriesPerRequest: 3, lazyConnect: false, enableAutoPipelining: true, ...overrides };
  if (target.kind === 'sentinel') return new Redis({ ...sentinelOptions(target), ...options });
  const url = target.url;
  if (url.startsWith('unix://')) return new Redis({ ...options, path: url.slice('unix://'.length) });
  if (url.startsWith('/')) return new Redis({ ...options, path: url });
  return new Redis(url, options);
}

/** Which Redis a process uses, as `ternmail status` and the metrics listeners' /readyz say it (never a password). */
export type RedisInUse = { mode: 'url'; url: string } | { mode: 'sentinel'; name: string; sentinels: string[]; master: string | null };

const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** A URL without its credentials. */
function withoutCredentials(url: string): string {
  if (!/^rediss?:\/\//.test(url)) return url;
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/** The master a sentinel-mode connection reached, host:port, while it is connected; null otherwise. */
function connectedMaster(redis: Redis): string | null {
  const { remoteAddress, remotePort } = (redis.status === 'ready' ? redis.stream : undefined) ?? {};
  if (!remoteAddress || !remotePort) return null;
  return hostPort(remoteAddress.replace(/^::ffff:/, ''), remotePort);
}

/** What `redis` (connected to `target`) reaches now: its URL, or the sentinels and the master it is connected to. */
export function redisInUse(target: RedisTarget, redis: Redis): RedisInUse {
  if (target.kind === 'url') return { mode: 'url', url: withoutCredentials(target.url) };
  return { mode: 'sentinel', name: target.name, sentinels: target.sentinels.map((s) => hostPort(s.host, s.port)), master: connectedMaster(redis) };
}

/**
 * Whether Redis answers PING now. A connection that is not up is given until `timeoutMs` to come up (a CLI's new
 * one is still connecting); no PING is queued on one that is down, since the offline queue would hold it.
 */
export async function redisAnswers(redis: Redis, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  if (redis.status !== 'ready' && !(await becomesReady(redis, timeoutMs))) return false;
  return answersWithin(async () => (await redis.ping()) === 'PONG', Math.max(1, deadline - Date.now()));
}

function becomesReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/** Deletes a lock only if this holder still owns it. */
export const RELEASE_LOCK_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Whether a probe can tell anything yet: false to wait (its socket is not there), or throw to give up (it died). */
export type ReadyCheck = () => boolean;

/**
 * Pings a starting redis-server at `where` until it answers PONG, for at most `timeoutMs`; `canProbe` is asked
 * first on every round. One probe connection per round, closed whatever happens.
 */
export async function waitForPong(where: RedisOptions, o: { timeoutMs: number; intervalMs: number; name: string; canProbe?: ReadyCheck }): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  while (Date.now() < deadline) {
    if (o.canProbe?.() ?? true) {
      const probe = new Redis({ ...where, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // still starting
      } finally {
        probe.disconnect();
      }
    }
    await new Promise((r) => setTimeout(r, o.intervalMs));
  }
  throw new Error(`${o.name} did not become ready in time`);
}
