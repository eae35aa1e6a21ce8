// Connections to Redis (TCP, TLS or a unix socket), and the lock-release script every holder uses.
import { Redis, type RedisOptions } from 'ioredis';
import { answersWithin } from './readiness.js';

/**
 * Connects to the Redis named by a redis:// URL or a unix:// (or bare) socket path. Commands issued in the same
 * turn of the event loop (many requests at once under load) go out in one write (auto-pipelining).
 */
export function connectRedis(url: string, name: string, overrides: RedisOptions = {}): Redis {
  const options = { connectionName: name, maxRetriesPerRequest: 3, lazyConnect: false, enableAutoPipelining: true, ...overrides };
  if (url.startsWith('unix://')) return new Redis({ ...options, path: url.slice('unix://'.length) });
  if (url.startsWith('/')) return new Redis({ ...options, path: url });
  return new Redis(url, options);
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
