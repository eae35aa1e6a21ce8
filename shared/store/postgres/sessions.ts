// Dashboard sessions in PostgreSQL: the token's sha256 (unique), who, from where, created and last seen.
import type { PgSql } from './sql.js';
import type { Session } from '../../domain/user.js';
import type { NewSession, SessionRepository } from '../users.js';
import { decodeSession } from '../session-row.js';

const COLUMNS = 'id, user_id, token_hash, user_agent, address, created_at, last_seen_at';

export class PgSessionStore implements SessionRepository {
  constructor(private readonly sql: PgSql) {}

  async create(s: NewSession): Promise<Session> {
    const row = await this.sql.get(
      `INSERT INTO sessions (user_id, token_hash, user_agent, address, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${COLUMNS}`,
      [s.userId, s.tokenHash, s.userAgent, s.address, s.at],
    );
    return decodeSession(row!);
  }

  async findByTokenHash(tokenHash: string): Promise<Session | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM sessions WHERE token_hash = $1`, [tokenHash]);
    return row && decodeSession(row);
  }

  /**
   * Never back, even with two requests of one session at once: the second UPDATE waits for the first's row lock
   * and then evaluates `last_seen_at < $1` again on the row the first wrote.
   */
  async touch(id: number, at: string): Promise<void> {
    await this.sql.run('UPDATE sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < $1', [at, id]);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM sessions WHERE id = $1', [id])).changes === 1;
  }

  async removeForUser(userId: number, keepId?: number): Promise<number> {
    return (await this.sql.run('DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2', [userId, keepId ?? null])).changes;
  }

  async listForUser(userId: number): Promise<Session[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
    return rows.map(decodeSession);
  }
}
