// Two-step sign-in challenges in SQLite: keyed by the token's sha256; a try is one conditional UPDATE that
// either marks the challenge used (the code's hash matched) or counts a wrong try, never both, never past the
// limit; only when it changed nothing is the challenge read again, to say why.
import type { Sql } from './sql.js';
import type { NewTwoStepChallenge, TwoStepChallengeRepository, TwoStepTry } from '../two-step.js';
import { decodeUserOf, tryOutcome } from '../two-step-row.js';
/**
 * A new challenge, in place of the user's unused one (one unused challenge per user is a partial unique index):
 * one statement, so two sign-ins at once leave one code that works, the later one's.
 */
const UPSERT = `INSERT INTO two_step_challenges (token_hash, user_id, code_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (user_id) WHERE used_at IS NULL
  DO UPDATE SET token_hash = excluded.token_hash, code_hash = excluded.code_hash, attempts = 0, created_at = excluded.created_at, expires_at = excluded.expires_at`;

export class TwoStepChallengeStore implements TwoStepChallengeRepository {
  constructor(private readonly sql: Sql) {}

  async create(c: NewTwoStepChallenge): Promise<void> {
    await this.sql.run(UPSERT, [c.tokenHash, c.userId, c.codeHash, c.at, c.expiresAt]);
  }

  async userOf(tokenHash: string): Promise<number | undefined> {
    const row = await this.sql.get('SELECT user_id FROM two_step_challenges WHERE token_hash = ?', [tokenHash]);
    return row && decodeUserOf(row);
  }

  async attempt(tokenHash: string, codeHash: string, at: string, maxTries: number): Promise<TwoStepTry> {
    const [updated] = await this.sql.returning(
      `UPDATE two_step_challenges
       SET used_at = CASE WHEN code_hash = ? THEN ? ELSE used_at END, attempts = attempts + CASE WHEN code_hash = ? THEN 0 ELSE 1 END
       WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? AND attempts < ?
       RETURNING user_id, used_at, attempts`,
      [codeHash, at, codeHash, tokenHash, at, maxTries],
    );
    const existing = updated ? undefined : await this.sql.get('SELECT user_id FROM two_step_challenges WHERE token_hash = ?', [tokenHash]);
    return tryOutcome(updated, existing, maxTries);
  }

  async removeExpired(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM two_step_challenges WHERE expires_at < ?', [before])).changes;
  }
}
