// How fast an account may change things through the management interfaces (/v2 and the dashboard alike): one
// sliding window per account and bucket in Redis, shared by every API process and both interfaces, so a
// client cannot double its allowance by switching interface. The limits are policy (config `limits`).
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { hitRateLimit, reserveWindows, type RateDecision } from '../rate-limit.js';
import { redisKeys } from '../redis-keys.js';

/** The buckets: domain creation has its own (DNS checks follow each one), every other change shares one. */
export type WriteBucket = 'domains' | 'writes';

const WINDOW_S = 60;

export class WriteRates {
  constructor(private readonly d: { redis: Redis; config: Config }) {}

  /** Counts one request of the account against the bucket; refused past the bucket's limit per minute. */
  take(accountId: number, bucket: WriteBucket): Promise<RateDecision> {
    return hitRateLimit(this.d.redis, accountId, bucket, this.limitOf(bucket), WINDOW_S);
  }

  /**
   * Counts `want` changes of one request (a bulk add's names) against the bucket at once: as many as fit are
   * granted, atomically, before any is made; the decision is allowed only when all were, and its remaining is
   * exact. take() is this with one change (the same window: one rule for both).
   */
  async reserve(accountId: number, bucket: WriteBucket, want: number): Promise<{ granted: number; decision: RateDecision }> {
    const window = { key: redisKeys.rateLimit(accountId, bucket), limit: this.limitOf(bucket), windowS: WINDOW_S };
    const { granted, decisions } = await reserveWindows(this.d.redis, [window], want);
    const [decision] = decisions;
    if (!decision) throw new Error('a reservation over one window answers one decision');
    return { granted, decision };
  }

  limitOf(bucket: WriteBucket): number {
    return bucket === 'domains' ? this.d.config.limits.domainCreatesPerMinute : this.d.config.limits.writesPerMinute;
  }
}
