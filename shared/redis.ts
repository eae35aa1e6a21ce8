// Connections to Redis (TCP, TLS or a unix socket), and the lock-release script every holder uses.
import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connects to the Redis named by a redis:// URL or a unix:// (or bare) socket path. Commands issued in the same
 * turn of the event loop (many requests at once under load) go out in one write (auto-pipelining).
 */
export function connectRedis(url: string, name: string): Redis {
  const options = { connectionName: name, maxRetriesPerRequest: 3, lazyConnect: false, enableAutoPipelining: true };
  if (url.startsWith('unix://')) return new Redis({ ...options, path: url.slice('unix://'.length) });
  if (url.startsWith('/')) return new Redis({ ...options, path: url });
  return new Redis(url, options);
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
