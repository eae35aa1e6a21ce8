// Sign-in providers and links in PostgreSQL: as SQLite's (store/sqlite/social-sign-in.ts); the row read before a
// save is locked (FOR UPDATE), so the audit entry's "before" is the row the save replaced.
import type { PgSql } from './sql.js';
import type { SocialProvider, SocialProviderSettings } from '../../domain/social-sign-in.js';
import type { SocialLink, SocialSignInRepository } from '../social-sign-in.js';
import type { NewAuditEntry } from '../audit-log.js';
import { PgAuditLogStore } from './audit-log.js';
import { decodeLink, decodeProvider, LINK_COLUMNS, PROVIDER_COLUMNS, providerValues } from '../social-sign-in-row.js';

export class PgSocialSignInStore implements SocialSignInRepository {
  constructor(private readonly sql: PgSql) {}

  async providers(): Promise<SocialProviderSettings[]> {
    return (await this.sql.all(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers ORDER BY provider`)).map(decodeProvider);
  }

  async provider(provider: SocialProvider): Promise<SocialProviderSettings | undefined> {
    const row = await this.sql.get(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers WHERE provider = $1`, [provider]);
    return row && decodeProvider(row);
  }

  async putProvider(s: SocialProviderSettings, audit: (before: SocialProviderSettings | undefined) => NewAuditEntry): Promise<SocialProviderSettings | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers WHERE provider = $1 FOR UPDATE`, [s.provider]);
      const before = row && decodeProvider(row);
      await q.run(
        `INSERT INTO social_sign_in_providers (${PROVIDER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (provider) DO UPDATE SET enabled = excluded.enabled, client_id = excluded.client_id,
           client_secret_enc = excluded.client_secret_enc, issuer = excluded.issuer, updated_at = excluded.updated_at`,
        providerValues(s),
      );
      await PgAuditLogStore.insert(q, audit(before));
      return before;
    });
  }

  async linkOf(provider: SocialProvider, subject: string): Promise<number | undefined> {
    const row = await this.sql.get(`SELECT ${LINK_COLUMNS} FROM social_sign_in_links WHERE provider = $1 AND subject = $2`, [provider, subject]);
    return row && decodeLink(row).userId;
  }

  async link(l: SocialLink): Promise<SocialLink> {
    await this.sql.run('INSERT INTO social_sign_in_links (provider, subject, user_id, linked_at) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, subject) DO NOTHING', [
      l.provider,
      l.subject,
      l.userId,
      l.linkedAt,
    ]);
    // Read committed: a link another sign-in committed first is seen here, and stands.
    const row = await this.sql.get(`SELECT ${LINK_COLUMNS} FROM social_sign_in_links WHERE provider = $1 AND subject = $2`, [l.provider, l.subject]);
    return decodeLink(row!);
  }
}
