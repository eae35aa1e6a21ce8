// Two-step sign-in challenges in PostgreSQL: as SQLite's (store/sqlite/two-step.ts). A try is one conditional
// UPDATE; of two tries at once the second waits for the first's row lock, then finds the challenge used or
// counted, so a code never signs in twice and the tries never pass the limit.
import type { PgSql } from './sql.js';
import type { NewTwoStepChallenge, TwoStepChallengeRepository, TwoStepTry } from '../two-step.js';
import { decodeUserOf, tryOutcome } from '../two-step-row.js';
/**
 * A new challenge, in place of the user's unused one (one unused challenge per user is a partial unique index):
 * one statement, so two sign-ins at once leave one code that works, the later one's.
 */
const UPSERT = `INSERT INTO two_step_challenges (token_hash, user_id, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (user_id) WHERE used_at IS NULL
  DO UPDATE SET token_hash = excluded.token_hash, code_hash = excluded.code_hash, attempts = 0, created_at = excluded.created_at, expires_at = excluded.expires_at`;

export class PgTwoStepChallengeStore implements TwoStepChallengeRepository {
  constructor(private readonly sql: PgSql) {}

  async create(c: NewTwoStepChallenge): Promise<void> {
    await this.sql.run(UPSERT, [c.tokenHash, c.userId, c.codeHash, c.at, c.expiresAt]);
  }

  async userOf(tokenHash: string): Promise<number | undefined> {
    const row = await this.sql.get('SELECT user_id FROM two_step_challenges WHERE token_hash = $1', [tokenHash]);
    return row && decodeUserOf(row);
  }

  async attempt(tokenHash: string, codeHash: string, at: string, maxTries: number): Promise<TwoStepTry> {
    const updated = await this.sql.get(
      `UPDATE two_step_challenges
       SET used_at = CASE WHEN code_hash = $1 THEN $2 ELSE used_at END, attempts = attempts + CASE WHEN code_hash = $1 THEN 0 ELSE 1 END
       WHERE token_hash = $3 AND used_at IS NULL AND expires_at > $2 AND attempts < $4
       RETURNING user_id, used_at, attempts`,
      [codeHash, at, tokenHash, maxTries],
    );
    const existing = updated ? undefined : await this.sql.get('SELECT user_id FROM two_step_challenges WHERE token_hash = $1', [tokenHash]);
    return tryOutcome(updated, existing, maxTries);
  }

  async removeExpired(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM two_step_challenges WHERE expires_at < $1', [before])).changes;
  }
}
