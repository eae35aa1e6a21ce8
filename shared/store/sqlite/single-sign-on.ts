// Single sign-on sites and spent tokens in SQLite: a site's creation and removal with its audit entry in one
// transaction; a token spent by one INSERT on its primary key (the pair's site id and the token's one-time id).
import type { Sql } from './sql.js';
import type { SsoSite, SsoSiteKind } from '../../domain/single-sign-on.js';
import type { NewSsoSite, SingleSignOnRepository, SsoSiteWithSecret } from '../single-sign-on.js';
import type { NewAuditEntry } from '../audit-log.js';
import { AuditLogStore } from './audit-log.js';
import { decodeSite, decodeSiteWithSecret, SITE_COLUMNS } from '../single-sign-on-row.js';

export class SingleSignOnStore implements SingleSignOnRepository {
  constructor(private readonly sql: Sql) {}

  async create(s: NewSsoSite, audit: (site: SsoSite) => NewAuditEntry): Promise<SsoSite | 'exists'> {
    return this.sql.tx(async (q) => {
      // The unique keys decide: of two registrations of one url at once, one is stored.
      const row = await q.get(
        `INSERT INTO sso_sites (kind, site_id, name, url, secret_sealed, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING ${SITE_COLUMNS}`,
        [s.kind, s.siteId, s.name, s.url, s.secretSealed, s.at],
      );
      if (!row) return 'exists';
      const site = decodeSite(row);
      await AuditLogStore.insert(q, audit(site));
      return site;
    });
  }

  async list(kind: SsoSiteKind): Promise<SsoSite[]> {
    return (await this.sql.all(`SELECT ${SITE_COLUMNS} FROM sso_sites WHERE kind = ? ORDER BY id`, [kind])).map(decodeSite);
  }

  async get(id: number): Promise<SsoSite | undefined> {
    const row = await this.sql.get(`SELECT ${SITE_COLUMNS} FROM sso_sites WHERE id = ?`, [id]);
    return row && decodeSite(row);
  }

  async withSecret(kind: SsoSiteKind, siteId: string): Promise<SsoSiteWithSecret | undefined> {
    const row = await this.sql.get(`SELECT ${SITE_COLUMNS}, secret_sealed FROM sso_sites WHERE kind = ? AND site_id = ?`, [kind, siteId]);
    return row && decodeSiteWithSecret(row);
  }

  async remove(id: number, audit: (site: SsoSite) => NewAuditEntry): Promise<SsoSite | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`DELETE FROM sso_sites WHERE id = ? RETURNING ${SITE_COLUMNS}`, [id]);
      if (!row) return undefined;
      const site = decodeSite(row);
      await AuditLogStore.insert(q, audit(site));
      return site;
    });
  }

  async spend(siteId: string, jti: string, expiresAt: string, at: string): Promise<boolean> {
    const spent = await this.sql.run('INSERT INTO sso_spent_tokens (site_id, jti, expires_at, spent_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [
      siteId,
      jti,
      expiresAt,
      at,
    ]);
    return spent.changes === 1;
  }

  async removeSpentBefore(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM sso_spent_tokens WHERE expires_at < ?', [before])).changes;
  }
}
