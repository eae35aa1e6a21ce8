// What the HTTP interface's routes are given, built once by the sidecar's main.
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { Core } from '../../shared/core/index.js';
import type { ComposePool } from './send/compose-pool.js';

/** Everything a route needs, built once by the sidecar's main. */
export interface AppContext {
  readonly config: Config;
  readonly redis: Redis;
  readonly log: Logger;
  /** The use cases every interface shares (sending, …). */
  readonly core: Core;
  /** Composes the MIME messages of HTTP sends on worker threads. */
  readonly composer: ComposePool;
}
