// Connections to Redis (TCP, TLS or a unix socket), and the lock-release script every holder uses.
import { Redis } from 'ioredis';

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
