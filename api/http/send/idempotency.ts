// Idempotency-Key: the same key and body within 24 hours returns the first response and sends nothing
// new; the same key with another body is a conflict. Stored per team acted on, in Redis; the sending
// group runs its handlers inside `idempotent`.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SendError } from '../../../shared/errors.js';
import { redisKeys } from '../../../shared/redis-keys.js';
import type { Call } from '../../pipeline/pipeline.js';
import type { GroupRoute, RouteResponse } from '../../pipeline/route.js';
import type { Sender } from './auth.js';
import { sendErrors } from './error-mapper.js';

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
      throw new SendError(409, 'conflict', 'This Idempotency-Key was used with another request body', {
        idempotency_key: { conflict: 'reuse a key only for the same request' },
      });
    }
    if (!entry.reply)
      throw new SendError(409, 'conflict', 'A request with this Idempotency-Key is still being processed', { idempotency_key: { in_progress: 'retry shortly' } });
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

/** The body as text for the idempotency record; a body nested beyond what JSON.stringify can walk is refused. */
function bodyText(raw: unknown): string {
  try {
    return JSON.stringify(raw ?? null);
  } catch {
    throw new SendError(422, 'validation_error', 'The request body is nested too deeply', { body: { invalid: 'the JSON body is nested too deeply' } });
  }
}

/** Runs `handler` once per Idempotency-Key, scoped to the team acted on (two teams never share a reply). */
export async function idempotent(call: Call<Sender, GroupRoute<Sender>>, handler: () => Promise<RouteResponse>): Promise<RouteResponse> {
  const key = call.req.headers['idempotency-key'];
  if (typeof key !== 'string' || !key) return handler();
  const idem = new Idempotency(call.ctx.redis);
  const teamId = call.caller.team.id;
  const text = bodyText(call.body);
  const started = await idem.begin(teamId, key, text);
  if ('replay' in started) return { ...started.replay, headers: { 'Idempotent-Replayed': 'true' } };
  // A failure is answered here, so that the key is released for a retry (finish forgets failed replies).
  const reply = await handler().then(
    (r) => ({ status: r.status ?? 200, body: r.body, headers: r.headers ?? {} }),
    (err: unknown) => sendErrors.answer(err, call.log),
  );
  // The message is committed by now: a Redis that fails here (a failover) costs the remembered reply, never the
  // answer. A retry with the key meets the pending claim (409 until it expires) or, on a new master, is sent again.
  await idem.finish(teamId, key, text, { status: reply.status, body: reply.body }).catch((err: Error) => {
    call.log.warn({ err: err.message, idempotency_key: key }, 'idempotency reply not stored in Redis');
  });
  return reply;
}
