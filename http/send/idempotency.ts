// Idempotency-Key: the same key and body within 24 hours returns the first response and sends nothing
// new; the same key with another body is a conflict. Stored per team acted on, in Redis.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SendError } from '../../shared/errors.js';
import { redisKeys } from '../../shared/redis-keys.js';

const TTL_S = 24 * 3600;
const PENDING_TTL_S = 120;

export interface StoredReply {
  status: number;
  body: unknown;
}

interface Entry {
  hash: string;
  reply?: StoredReply;
}

export class Idempotency {
  constructor(private readonly redis: Redis) {}

  /** Returns the stored reply of a repeated request, or claims the key for this one. */
  async begin(teamId: number, key: string, rawBody: string): Promise<{ replay: StoredReply } | { claimed: true }> {
    if (key.length > 255) throw new SendError(400, 'bad_request', 'Idempotency-Key is too long', { idempotency_key: { invalid: 'at most 255 characters' } });
    const hash = createHash('sha256').update(rawBody).digest('hex');
    const redisKey = redisKeys.idempotency(teamId, key);
    const claimed = await this.redis.set(redisKey, JSON.stringify({ hash } satisfies Entry), 'EX', PENDING_TTL_S, 'NX');
    if (claimed === 'OK') return { claimed: true };
    const entry = JSON.parse((await this.redis.get(redisKey)) ?? '{}') as Partial<Entry>;
    if (entry.hash !== hash) {
      throw new SendError(409, 'conflict', 'This Idempotency-Key was used with another request body', { idempotency_key: { conflict: 'reuse a key only for the same request' } });
    }
    if (!entry.reply) throw new SendError(409, 'conflict', 'A request with this Idempotency-Key is still being processed', { idempotency_key: { in_progress: 'retry shortly' } });
    return { replay: entry.reply };
  }

  async finish(teamId: number, key: string, rawBody: string, reply: StoredReply): Promise<void> {
    const hash = createHash('sha256').update(rawBody).digest('hex');
    const redisKey = redisKeys.idempotency(teamId, key);
    // Only successful sends are remembered; a failed request may be retried with the same key.
    if (reply.status >= 200 && reply.status < 300) await this.redis.set(redisKey, JSON.stringify({ hash, reply } satisfies Entry), 'EX', TTL_S);
    else await this.redis.del(redisKey);
  }
}
