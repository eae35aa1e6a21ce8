// Dashboard sessions in SQLite: the token's sha256, who, from where, created and last seen.
import type { Sql } from './sql.js';
import type { Session } from '../../domain/user.js';
import type { NewSession, SessionRepository } from '../users.js';
import { decodeSession } from '../session-row.js';

export class SessionStore implements SessionRepository {
  constructor(private readonly sql: Sql) {}

  async create(s: NewSession): Promise<Session> {
    const [row] = await this.sql.returning(
      'INSERT INTO sessions (user_id, token_hash, user_agent, address, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
      [s.userId, s.tokenHash, s.userAgent, s.address, s.at, s.at],
    );
    return decodeSession(row!);
  }

  async findByTokenHash(tokenHash: string): Promise<Session | undefined> {
    const row = await this.sql.get('SELECT * FROM sessions WHERE token_hash = ?', [tokenHash]);
    return row && decodeSession(row);
  }

  async touch(id: number, at: string): Promise<void> {
    await this.sql.run('UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?', [at, id, at]);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM sessions WHERE id = ?', [id])).changes === 1;
  }

  async removeForUser(userId: number, keepId?: number): Promise<number> {
    return (await this.sql.run('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?', [userId, keepId ?? null])).changes;
  }

  async listForUser(userId: number): Promise<Session[]> {
    const rows = await this.sql.all('SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at, id', [userId]);
    return rows.map(decodeSession);
  }
}
