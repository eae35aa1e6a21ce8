// Password resets in SQLite: keyed by the token's sha256; creating removes the user's unused links first, and
// using a link is one conditional UPDATE (unused, not expired) followed by the user's new password hash, in one
// write transaction, so of two uses at once the second finds the link used.
import type { Sql } from './sql.js';
import type { PasswordReset } from '../../domain/password-reset.js';
import type { NewPasswordReset, PasswordResetRepository } from '../password-resets.js';
import { decodeReset } from '../password-reset-row.js';

/** Every column but the token's hash, which is only ever looked up. */
const COLUMNS = 'user_id, created_at, expires_at, used_at';

export class PasswordResetStore implements PasswordResetRepository {
  constructor(private readonly sql: Sql) {}

  async create(r: NewPasswordReset): Promise<PasswordReset> {
    const row = await this.sql.tx(async (q) => {
      await q.run('DELETE FROM password_resets WHERE user_id = ? AND used_at IS NULL', [r.userId]);
      return q.get(`INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`, [
        r.tokenHash,
        r.userId,
        r.at,
        r.expiresAt,
      ]);
    });
    return decodeReset(row!);
  }

  async findByTokenHash(tokenHash: string): Promise<PasswordReset | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM password_resets WHERE token_hash = ?`, [tokenHash]);
    return row && decodeReset(row);
  }

  async remove(tokenHash: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM password_resets WHERE token_hash = ?', [tokenHash])).changes === 1;
  }

  async use(tokenHash: string, passwordHash: string, at: string): Promise<PasswordReset | undefined> {
    return this.sql.tx(async (q) => {
      const used = await q.get(`UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING ${COLUMNS}`, [
        at,
        tokenHash,
        at,
      ]);
      if (!used) return undefined;
      const reset = decodeReset(used);
      await q.run('UPDATE users SET password_hash = ?, must_change_password = 0, updated_at = ? WHERE id = ?', [passwordHash, at, reset.userId]);
      return reset;
    });
  }
}
