// Magic links in PostgreSQL: as SQLite's (store/sqlite/magic-links.ts); the UPDATE … RETURNING takes the row's
// lock, so of two uses at once the second sees it used.
import type { PgSql } from './sql.js';
import type { MagicLinkRepository, NewMagicLink } from '../magic-links.js';
import { decodeLinkUser } from '../magic-link-row.js';

export class PgMagicLinkStore implements MagicLinkRepository {
  constructor(private readonly sql: PgSql) {}

  async create(l: NewMagicLink): Promise<void> {
    await this.sql.tx(async (q) => {
      await q.run('DELETE FROM magic_links WHERE user_id = $1 AND used_at IS NULL', [l.userId]);
      await q.run('INSERT INTO magic_links (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [l.tokenHash, l.userId, l.at, l.expiresAt]);
    });
  }

  async remove(tokenHash: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM magic_links WHERE token_hash = $1', [tokenHash])).changes === 1;
  }

  async use(tokenHash: string, at: string): Promise<number | undefined> {
    const row = await this.sql.get('UPDATE magic_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id', [
      at,
      tokenHash,
    ]);
    return row && decodeLinkUser(row);
  }
}
