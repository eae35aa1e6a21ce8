// What every route of the API's HTTP front is given (/v2, /api and the pages alike), built once by the API
// process's main (api/main.ts).
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { Core } from '../../shared/core/index.js';
import type { SecretBox } from '../../shared/secret-box.js';

/** Everything a route needs, built once by the sidecar's main. */
export interface AppContext {
  readonly config: Config;
  readonly redis: Redis;
  readonly log: Logger;
  /** The use cases every interface shares (sending, …). */
  readonly core: Core;
  /** Composes the MIME messages of HTTP sends on worker threads. */
  readonly composer: MessageComposer;
  /** Seals what the pages leave in Redis for the next page (a new key's value): never kept there in the clear. */
  readonly secrets: SecretBox;
}

/**
 * What the sending routes compose with: the worker pool of api/http/send/compose-pool.ts. Declared here by its
 * shape, so the context the pages share names no module of the sending routes (api/pipeline imports neither
 * api/http nor api/web); only the sending routes call it, with their validated send request.
 */
export interface MessageComposer {
  compose(request: object, messageId: string): Promise<{ body: Buffer; messageIdHeader: string }>;
}
