// Dashboard sessions in SQLite: the token's sha256, who, from where, created and last seen.
import { Type } from '@sinclair/typebox';
import type { Sql } from './sql.js';
import { Int, rowDecoder, Text } from './decode.js';
import type { Session } from '../../domain/user.js';
import type { NewSession, SessionRepository } from '../users.js';

const SessionRow = Type.Object({
  id: Int,
  user_id: Int,
  token_hash: Text,
  user_agent: Text,
  address: Text,
  created_at: Text,
  last_seen_at: Text,
});

const decodeSession = rowDecoder('session', SessionRow, (r): Session => ({
  id: r.id,
  userId: r.user_id,
  tokenHash: r.token_hash,
  userAgent: r.user_agent,
  address: r.address,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
}));

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
