// A two-step challenge's rows as both engines return them, decoded; and what a try came to, from them.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, rowDecoder, Text, type Row } from './decode.js';
import type { TwoStepTry } from './two-step.js';

/** The row an attempt's UPDATE returns: the challenge after it (used_at set when the code matched). */
const decodeTried = rowDecoder('two-step try', Type.Object({ user_id: Int, used_at: Nullable(Text), attempts: Int }), (r) => r);

export const decodeUserOf = rowDecoder('two-step challenge', Type.Object({ user_id: Int }), (r) => r.user_id);

/** A try's outcome: from the UPDATE's row when it matched the challenge, else the challenge's user (spent) or none. */
export function tryOutcome(updated: Row | undefined, existing: Row | undefined, maxTries: number): TwoStepTry {
  if (updated) {
    const r = decodeTried(updated);
    return r.used_at !== null ? { outcome: 'used', userId: r.user_id } : { outcome: 'wrong', userId: r.user_id, triesLeft: Math.max(0, maxTries - r.attempts) };
  }
  return existing ? { outcome: 'spent', userId: decodeUserOf(existing) } : { outcome: 'unknown' };
}
