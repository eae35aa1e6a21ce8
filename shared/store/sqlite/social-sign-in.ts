// Sign-in providers and links in SQLite: a provider's save is one upsert with its audit entry in the same
// transaction; a link one INSERT that the key (provider, subject) lets through once.
import type { Sql } from './sql.js';
import type { SocialProvider, SocialProviderSettings } from '../../domain/social-sign-in.js';
import type { SocialLink, SocialSignInRepository } from '../social-sign-in.js';
import type { NewAuditEntry } from '../audit-log.js';
import { AuditLogStore } from './audit-log.js';
import { decodeLink, decodeProvider, LINK_COLUMNS, PROVIDER_COLUMNS, providerValues } from '../social-sign-in-row.js';

export class SocialSignInStore implements SocialSignInRepository {
  constructor(private readonly sql: Sql) {}

  async providers(): Promise<SocialProviderSettings[]> {
    return (await this.sql.all(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers ORDER BY provider`)).map(decodeProvider);
  }

  async provider(provider: SocialProvider): Promise<SocialProviderSettings | undefined> {
    const row = await this.sql.get(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers WHERE provider = ?`, [provider]);
    return row && decodeProvider(row);
  }

  async putProvider(s: SocialProviderSettings, audit: (before: SocialProviderSettings | undefined) => NewAuditEntry): Promise<SocialProviderSettings | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${PROVIDER_COLUMNS} FROM social_sign_in_providers WHERE provider = ?`, [s.provider]);
      const before = row && decodeProvider(row);
      await q.run(
        `INSERT INTO social_sign_in_providers (${PROVIDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (provider) DO UPDATE SET enabled = excluded.enabled, client_id = excluded.client_id,
           client_secret_enc = excluded.client_secret_enc, issuer = excluded.issuer, updated_at = excluded.updated_at`,
        providerValues(s),
      );
      await AuditLogStore.insert(q, audit(before));
      return before;
    });
  }

  async linkOf(provider: SocialProvider, subject: string): Promise<number | undefined> {
    const row = await this.sql.get(`SELECT ${LINK_COLUMNS} FROM social_sign_in_links WHERE provider = ? AND subject = ?`, [provider, subject]);
    return row && decodeLink(row).userId;
  }

  async link(l: SocialLink): Promise<SocialLink> {
    await this.sql.run('INSERT INTO social_sign_in_links (provider, subject, user_id, linked_at) VALUES (?, ?, ?, ?) ON CONFLICT (provider, subject) DO NOTHING', [
      l.provider,
      l.subject,
      l.userId,
      l.linkedAt,
    ]);
    const row = await this.sql.get(`SELECT ${LINK_COLUMNS} FROM social_sign_in_links WHERE provider = ? AND subject = ?`, [l.provider, l.subject]);
    return decodeLink(row!);
  }
}
