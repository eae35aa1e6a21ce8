// The record of the last automatic domain-check round, kept in Redis: the MTA's verifier writes it after each
// round, the system status (any process) reads it back. Here, below both, so neither imports the other.
import type { Redis } from 'ioredis';
import { redisKeys } from '../redis-keys.js';

/** A round that ran, as the status reads it back: when it ended and what it did. */
export interface RecordedRound {
  endedAt: string;
  checked: number;
  verified: number;
  expired: number;
}

/** The last round any process ran, or null when none was recorded (none since Redis was emptied). */
export async function lastRecordedRound(redis: Redis): Promise<RecordedRound | null> {
  const text = await redis.get(redisKeys.verifyLastRound());
  if (text === null) return null;
  const r = JSON.parse(text) as Partial<RecordedRound>;
  return typeof r.endedAt === 'string' ? { endedAt: r.endedAt, checked: r.checked ?? 0, verified: r.verified ?? 0, expired: r.expired ?? 0 } : null;
}

/** Records a round that just ended; the caller decides what a failed write means. */
export async function recordRound(redis: Redis, round: RecordedRound): Promise<void> {
  await redis.set(redisKeys.verifyLastRound(), JSON.stringify(round));
}
