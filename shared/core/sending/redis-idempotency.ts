// Idempotency replies in Redis: one key per team and Idempotency-Key (redisKeys.idempotency), holding JSON
// {hash, token} while the first request runs, then {hash, reply}; Redis's own expiry ends both. The default
// beside SQLite (one machine, one Redis). A reservation is SET … NX, decided by Redis; completion and release
// are scripts that act only while the key is still the reservation's own (same token, no reply yet).
import type { Redis } from 'ioredis';
import { redisKeys } from '../../redis-keys.js';
import type { HeldKey, IdempotencyRepository, KeyReservation, NewReservation, StoredReply } from '../../store/idempotency.js';

interface Entry {
  hash: string;
  /** Absent on a completed entry, and on those written before reservations had tokens. */
  token?: string;
  reply?: StoredReply;
}

/**
 * KEYS: the key. ARGV: the token; for a completion, the reply (JSON) and the entry's lifetime in ms. The entry
 * keeps its request hash; the reply's JSON is put in as given (decoding and encoding it in the script would
 * turn an empty array into an object).
 */
const FENCED = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local e = cjson.decode(v)
if e.token ~= ARGV[1] or e.reply ~= nil then return 0 end
if ARGV[2] then
  redis.call('SET', KEYS[1], '{"hash":' .. cjson.encode(e.hash) .. ',"reply":' .. ARGV[2] .. '}', 'PX', ARGV[3])
else
  redis.call('DEL', KEYS[1])
end
return 1`;

/** How many times a reservation tries again when the entry it lost to was gone by the time it read it. */
const RESERVE_ATTEMPTS = 3;

const msBetween = (from: string, to: string): number => Math.max(1, Date.parse(to) - Date.parse(from));

export class RedisIdempotency implements IdempotencyRepository {
  constructor(private readonly redis: Redis) {}

  async reserve(r: NewReservation): Promise<KeyReservation> {
    const key = redisKeys.idempotency(r.teamId, r.key);
    const pending = JSON.stringify({ hash: r.requestHash, token: r.token } satisfies Entry);
    for (let attempt = 1; ; attempt++) {
      if ((await this.redis.set(key, pending, 'PX', msBetween(r.at, r.holdUntil), 'NX')) === 'OK') return { state: 'reserved' };
      const stored = await this.redis.get(key);
      if (stored !== null) {
        const entry = JSON.parse(stored) as Entry;
        return entry.reply ? { state: 'completed', requestHash: entry.hash, reply: entry.reply } : { state: 'in_progress', requestHash: entry.hash };
      }
      // Released or expired between the two commands: busy rather than a second send; the client retries.
      if (attempt >= RESERVE_ATTEMPTS) return { state: 'in_progress', requestHash: r.requestHash };
    }
  }

  async complete(held: HeldKey, reply: StoredReply, at: string, expiresAt: string): Promise<boolean> {
    const key = redisKeys.idempotency(held.teamId, held.key);
    return (await this.redis.eval(FENCED, 1, key, held.token, JSON.stringify(reply), msBetween(at, expiresAt))) === 1;
  }

  async release(held: HeldKey): Promise<boolean> {
    return (await this.redis.eval(FENCED, 1, redisKeys.idempotency(held.teamId, held.key), held.token)) === 1;
  }

  /** Redis expires its keys itself. */
  sweep(): Promise<number> {
    return Promise.resolve(0);
  }
}
