// Idempotency-Key on sends: the same key and request content within 24 hours gets the first reply and sends
// nothing new; the same key with another content is refused, as is a repeat while the first is still running.
// Keys are per team acted on (two teams never share a reply). Only successful replies are kept: a failed
// request releases its key, so it may be retried with the same key. The interface (api/http/send/idempotency.ts)
// hashes nothing and decides nothing: it hands the request's text and its reply here and maps the outcome.
//
// Where replies are kept is idempotency.store: Redis (the default on SQLite) or the database (the default on
// PostgreSQL, where several machines share the database and a Redis failover must not forget a reply).
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import type { StoreEngine } from '../../store/system.js';
import type { HeldKey, IdempotencyRepository, StoredReply } from '../../store/idempotency.js';
import { RedisIdempotency } from './redis-idempotency.js';

export type { HeldKey, StoredReply } from '../../store/idempotency.js';

/** How long a successful reply is replayed. */
const REPLY_TTL_MS = 24 * 3600_000;
/** How long a request may run holding its key; past it, the key is free again (a crashed process's is). */
const HOLD_MS = 120_000;
/** The longest key kept. */
export const MAX_KEY_LENGTH = 255;
/** Expired rows removed per statement when the database keeps the replies. */
const SWEEP_BATCH = 1000;

export type IdempotencyRefusal =
  /** Longer than MAX_KEY_LENGTH. */
  | 'key_too_long'
  /** The key was used for a request with other content. */
  | 'other_request'
  /** The first request with this key is still running. */
  | 'in_progress';

export type IdempotencyStart =
  /** The key is this request's: run it, then call finish. */
  | { kind: 'proceed'; held: HeldKey }
  /** A repeat of a request that succeeded: answer its reply, send nothing. */
  | { kind: 'replay'; reply: StoredReply }
  | { kind: 'refused'; refusal: IdempotencyRefusal };

export type IdempotencyStoreName = 'redis' | 'database';

/** The configured place (idempotency.store), or by default the database on PostgreSQL and Redis on SQLite. */
export function idempotencyStoreOf(setting: Config['idempotency']['store'], engine: StoreEngine): IdempotencyStoreName {
  return setting ?? (engine === 'postgresql' ? 'database' : 'redis');
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export class Idempotency {
  private readonly replies: IdempotencyRepository;

  constructor(d: { config: Pick<Config, 'idempotency'>; store: Pick<Store, 'system' | 'idempotency'>; redis: Redis }) {
    this.replies = idempotencyStoreOf(d.config.idempotency.store, d.store.system.engine) === 'database' ? d.store.idempotency : new RedisIdempotency(d.redis);
  }

  /** Takes the team's key for this request (`requestText`: its content), or says why it must not run. */
  async begin(teamId: number, key: string, requestText: string): Promise<IdempotencyStart> {
    if (key.length > MAX_KEY_LENGTH) return { kind: 'refused', refusal: 'key_too_long' };
    const requestHash = sha256(requestText);
    const held = { teamId, key, token: randomBytes(16).toString('hex') };
    const now = Date.now();
    const found = await this.replies.reserve({ ...held, requestHash, at: iso(now), holdUntil: iso(now + HOLD_MS) });
    if (found.state === 'reserved') return { kind: 'proceed', held };
    if (found.requestHash !== requestHash) return { kind: 'refused', refusal: 'other_request' };
    return found.state === 'completed' ? { kind: 'replay', reply: found.reply } : { kind: 'refused', refusal: 'in_progress' };
  }

  /**
   * Keeps a successful (2xx) reply for repeats; any other frees the key for a retry. A request that outran its
   * hold (the key taken over meanwhile) changes nothing: the reservation's token fences both.
   */
  async finish(held: HeldKey, reply: StoredReply): Promise<void> {
    const now = Date.now();
    if (reply.status >= 200 && reply.status < 300) await this.replies.complete(held, reply, iso(now), iso(now + REPLY_TTL_MS));
    else await this.replies.release(held);
  }

  /** Removes expired reservations and replies, a batch at a time (Redis expires its own); how many went. */
  async sweep(): Promise<number> {
    const at = iso(Date.now());
    let removed = 0;
    for (;;) {
      const batch = await this.replies.sweep(at, SWEEP_BATCH);
      removed += batch;
      if (batch < SWEEP_BATCH) return removed;
    }
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
