// The Redis side of the queue: a sorted set saying which recipient is due when, and the channel that wakes
// idle schedulers. It holds nothing SQLite lacks (queue.ts rebuilds it from SQLite), so losing it loses no
// message. Only queue/queue.ts uses it.
import type { Redis } from 'ioredis';
import { redisKeys } from '../redis-keys.js';

/** Takes up to ARGV[2] ids due by ARGV[1] off the schedule, atomically: two schedulers never pop the same id. */
const POP_DUE = `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #ids > 0 then redis.call('ZREM', KEYS[1], unpack(ids)) end
return ids`;

/** Entries added per ZADD. */
const ZADD_CHUNK = 1000;

export type Due = { id: number; due: number };

export class Schedule {
  constructor(private readonly redis: Redis) {}

  /**
   * Puts recipients on the schedule at their due time. 'LT' moves an entry Redis already has only to an earlier
   * time: the store's time wins over a lease's end (a released lease), never over an earlier wake-up.
   */
  async add(rows: readonly Due[], mode: 'LT' | null): Promise<void> {
    const key = redisKeys.queueDue();
    for (let i = 0; i < rows.length; i += ZADD_CHUNK) {
      const args = rows.slice(i, i + ZADD_CHUNK).flatMap((r) => [r.due, String(r.id)]);
      if (mode) await this.redis.zadd(key, mode, ...args);
      else await this.redis.zadd(key, ...args);
    }
  }

  /** Takes recipients off the schedule (finished: nothing of theirs will be due again). */
  async remove(ids: readonly number[]): Promise<void> {
    const key = redisKeys.queueDue();
    for (let i = 0; i < ids.length; i += ZADD_CHUNK) await this.redis.zrem(key, ...ids.slice(i, i + ZADD_CHUNK).map(String));
  }

  /** Adds one message's new recipients and wakes the schedulers, sent together with the other submissions of the same moment (auto-pipelining). */
  async addAndWake(messageId: string, rows: readonly Due[]): Promise<void> {
    const args = rows.flatMap((r) => [r.due, String(r.id)]);
    await Promise.all([this.redis.zadd(redisKeys.queueDue(), ...args), this.redis.publish(redisKeys.queueWakeChannel(), messageId)]);
  }

  /** Wakes idle schedulers: something is due now. */
  async wake(reason: string): Promise<void> {
    await this.redis.publish(redisKeys.queueWakeChannel(), reason);
  }

  async popDue(now: number, max: number): Promise<number[]> {
    const ids = (await this.redis.eval(POP_DUE, 1, redisKeys.queueDue(), now, max)) as string[];
    return ids.map(Number);
  }

  /**
   * Calls `onWake` when mail is queued (by any process) and `onReady` when the Redis connection is back
   * (possibly to an empty Redis). Answers the function that stops both.
   */
  async watch(onWake: () => void, onReady: () => void): Promise<() => void> {
    const subscriber = this.redis.duplicate();
    subscriber.on('error', () => undefined);
    subscriber.on('message', () => onWake());
    await subscriber.subscribe(redisKeys.queueWakeChannel()).catch(() => undefined);
    this.redis.on('ready', onReady);
    return () => {
      subscriber.disconnect();
      this.redis.off('ready', onReady);
    };
  }
}
