// Resolves presented key values to active key records. Records are cached briefly; a revocation is
// published over Redis pub/sub so every process drops the key at once, and the TTL bounds the delay
// (well under the specification's minute) even if a message is lost.
import type { Redis } from 'ioredis';
import { hashKey, kindOf } from '../api-key.js';
import { redisKeys } from '../redis-keys.js';
import type { KeyRepository } from '../store/keys.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { Logger } from '../log.js';

interface Entry {
  record: KeyRecord;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private subscriber: Redis | null = null;

  constructor(
    private readonly keys: KeyRepository,
    private readonly ttlMs: number,
  ) {}

  /** Listens for revocations on a dedicated connection (a subscribed connection can do nothing else). */
  async listen(redis: Redis, log: Logger): Promise<void> {
    this.subscriber = redis.duplicate();
    this.subscriber.on('message', (_channel: string, hash: string) => this.entries.delete(hash));
    this.subscriber.on('error', (err: Error) => log.warn({ err: err.message }, 'key revocation subscriber error'));
    // After a reconnect messages may have been missed: drop everything rather than trust stale entries.
    this.subscriber.on('ready', () => this.entries.clear());
    await this.subscriber.subscribe(redisKeys.keyRevokedChannel());
  }

  async resolve(value: string): Promise<KeyRecord | undefined> {
    if (!kindOf(value)) return undefined;
    const hash = hashKey(value);
    const cached = this.entries.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.record;
    this.entries.delete(hash);
    const record = await this.keys.findByHash(hash);
    if (!record || record.status !== 'active' || record.kind !== kindOf(value)) return undefined;
    if (this.ttlMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(hash, { record, expiresAt: Date.now() + this.ttlMs });
    }
    return record;
  }

  /** Tells every process that these keys are gone (this one included, without waiting for Redis). */
  async revoked(redis: Redis, hashes: readonly string[], log: Logger): Promise<void> {
    for (const hash of hashes) {
      this.entries.delete(hash);
      // When Redis is unreachable the other processes still drop the key when its cache entry expires.
      await redis.publish(redisKeys.keyRevokedChannel(), hash).catch((err: Error) => log.warn({ err: err.message }, 'revocation not published'));
    }
  }

  close(): void {
    if (this.subscriber) this.subscriber.disconnect();
    this.subscriber = null;
  }
}
