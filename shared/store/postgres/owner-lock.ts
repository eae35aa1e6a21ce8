// A transaction-scoped lock on "the <what> of one owner" (a team's domains, an account's admin keys): writers
// that decide from other rows of the same owner (a limit counted, the one default domain) take it first and so
// run one after another, while everything else on the owner's rows (its team row's debits, reads) goes on.
import type { Queryable } from './sql.js';

/**
 * Waits for, then holds until commit or rollback, the advisory lock of (`what`, `ownerId`). Under READ COMMITTED
 * each statement reads what was committed when it started, so the statement after this one sees every write of
 * the previous holder: a count, or a NOT EXISTS, taken then decides for the whole owner.
 * hashtextextended gives a 64-bit key from the name, seeded by the owner's id; two pairs sharing a key (unlikely)
 * only wait for each other.
 */
export async function lockOwner(q: Queryable, what: string, ownerId: number): Promise<void> {
  await q.run('SELECT pg_advisory_xact_lock(hashtextextended($1, $2))', [what, ownerId]);
}
