// Password resets in PostgreSQL: keyed by the token's sha256. One unused link per user is a partial unique index
// here (password_resets_unused), so creating a link is one upsert that replaces the user's unused one, and using
// a link is one conditional UPDATE (unused, not expired) followed by the user's new password hash, in one
// transaction: of two uses at once, the second waits for the first's row lock and then finds the link used.
import type { PgSql } from './sql.js';
import type { PasswordReset } from '../../domain/password-reset.js';
import type { NewPasswordReset, PasswordResetRepository } from '../password-resets.js';
import { decodeReset } from '../password-reset-row.js';

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'user_id, created_at, expires_at, used_at';

/**
 * SQLite deletes the unused links and then inserts, which its single writer makes one step. Under READ COMMITTED
 * two links made at once would both find nothing to delete and both insert; the unique index on the user's
 * unused link makes the second the replacement of the first (it waits for it, then updates it) instead.
 */
const UPSERT = `INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (user_id) WHERE used_at IS NULL
  DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at
  RETURNING ${COLUMNS}`;

export class PgPasswordResetStore implements PasswordResetRepository {
  constructor(private readonly sql: PgSql) {}

  async create(r: NewPasswordReset): Promise<PasswordReset> {
    return decodeReset((await this.sql.get(UPSERT, [r.tokenHash, r.userId, r.at, r.expiresAt]))!);
  }

  async findByTokenHash(tokenHash: string): Promise<PasswordReset | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM password_resets WHERE token_hash = $1`, [tokenHash]);
    return row && decodeReset(row);
  }

  async remove(tokenHash: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM password_resets WHERE token_hash = $1', [tokenHash])).changes === 1;
  }

  async use(tokenHash: string, passwordHash: string, at: string): Promise<PasswordReset | undefined> {
    return this.sql.tx(async (q) => {
      const used = await q.get(`UPDATE password_resets SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING ${COLUMNS}`, [
        at,
        tokenHash,
      ]);
      if (!used) return undefined;
      const reset = decodeReset(used);
      await q.run('UPDATE users SET password_hash = $1, must_change_password = 0, updated_at = $2 WHERE id = $3', [passwordHash, at, reset.userId]);
      return reset;
    });
  }
}
