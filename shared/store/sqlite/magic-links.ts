// Magic links in SQLite: keyed by the token's sha256; creating removes the user's unused links first; using one
// is one conditional UPDATE … RETURNING (unused, not expired), so the second of two uses finds it used.
import type { Sql } from './sql.js';
import type { MagicLinkRepository, NewMagicLink } from '../magic-links.js';
import { decodeLinkUser } from '../magic-link-row.js';

export class MagicLinkStore implements MagicLinkRepository {
  constructor(private readonly sql: Sql) {}

  async create(l: NewMagicLink): Promise<void> {
    await this.sql.tx(async (q) => {
      await q.run('DELETE FROM magic_links WHERE user_id = ? AND used_at IS NULL', [l.userId]);
      await q.run('INSERT INTO magic_links (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [l.tokenHash, l.userId, l.at, l.expiresAt]);
    });
  }

  async remove(tokenHash: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM magic_links WHERE token_hash = ?', [tokenHash])).changes === 1;
  }

  async use(tokenHash: string, at: string): Promise<number | undefined> {
    const row = await this.sql.get('UPDATE magic_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id', [
      at,
      tokenHash,
      at,
    ]);
    return row && decodeLinkUser(row);
  }
}
