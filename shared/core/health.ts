// Whether this process is ready to serve: its store answers a trivial read and Redis a PING, plus what the
// process adds (the MTA: its SMTP listeners). shared/readiness.ts decides, under the configured time limit.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { PartsInUse } from '../health-endpoints.js';
import { decideReadiness, type Probes, type Readiness } from '../readiness.js';
import { redisAnswers, redisInUse, type RedisInUse } from '../redis.js';
import type { Store } from '../store/index.js';

export interface HealthDeps {
  config: Config;
  store: Store;
  redis: Redis;
}

export class Health {
  constructor(private readonly d: HealthDeps) {}

  /** The process's verdict; `extra` probes the parts only this process has. */
  readiness(extra: Probes = {}): Promise<Readiness> {
    const { store, redis, config } = this.d;
    const timeoutMs = config.health.probeTimeoutMs;
    return decideReadiness({ store: async () => (await store.system.schemaVersion()) > 0, redis: () => redisAnswers(redis, timeoutMs), ...extra }, timeoutMs);
  }

  /** The Redis this process uses: its URL, or its sentinels and the master it is connected to now. */
  private redisInUse(): RedisInUse | null {
    return this.d.config.redis && redisInUse(this.d.config.redis, this.d.redis);
  }

  /** The store's engine and the Redis in use, as the metrics listeners' /readyz names them. */
  partsInUse(): PartsInUse {
    return { engine: this.d.store.system.engine, redis: this.redisInUse() };
  }
}
