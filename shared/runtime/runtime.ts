// What every process opens at start: store, Redis, logger, secret box, key cache.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { openStore, type Store } from '../store/index.js';
import { connectRedis } from '../redis.js';
import { loadSecretBox, type SecretBox } from '../secret-box.js';
import { KeyCache } from './key-cache.js';

export interface Runtime {
  config: Config;
  store: Store;
  redis: Redis;
  log: Logger;
  secrets: SecretBox;
  keyCache: KeyCache;
  close(): Promise<void>;
}

export async function openRuntime(config: Config, name: string, log: Logger = createLogger(name, config.log.level)): Promise<Runtime> {
  if (!config.redis) throw new Error('no Redis configured: set TERNMAIL_REDIS_URL or TERNMAIL_REDIS_SENTINELS (ternmail start manages one for you)');
  const store = await openStore(config.dataDir, config.databaseUrl);
  const redis = connectRedis(config.redis, `tern-${name}`);
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
  const keyCache = new KeyCache(store.keys, config.keys.cacheTtlS * 1000);
  await keyCache.listen(redis, log);
  return {
    config,
    store,
    redis,
    log,
    secrets: loadSecretBox(config.dataDir),
    keyCache,
    async close() {
      keyCache.close();
      redis.disconnect();
      await store.close();
    },
  };
}
