// The sign-in page's branding in PostgreSQL: as SQLite's (store/sqlite/branding.ts); the branding row read before
// a save is locked (FOR UPDATE), so the audit entry's "before" is the row the save replaced, and the logo's image
// row is locked (FOR KEY SHARE) as the foreign key would.
import type { PgSql } from './sql.js';
import type { BrandingImage, SignInBranding } from '../../domain/branding.js';
import type { BrandingRepository, BrandingSave, StoredBranding } from '../branding.js';
import type { NewAuditEntry } from '../audit-log.js';
import { PgAuditLogStore } from './audit-log.js';
import { BRANDING_COLUMNS, brandingValues, decodeBranding, decodeBrandingImage, IMAGE_COLUMNS } from '../branding-row.js';

export class PgBrandingStore implements BrandingRepository {
  constructor(private readonly sql: PgSql) {}

  async addImage(image: BrandingImage): Promise<BrandingImage> {
    return this.sql.tx(async (q) => {
      await q.run(`INSERT INTO branding_images (${IMAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`, [
        image.id,
        image.contentType,
        image.content,
        image.uploadedBy,
        image.createdAt,
      ]);
      return decodeBrandingImage((await q.get(`SELECT ${IMAGE_COLUMNS} FROM branding_images WHERE id = $1`, [image.id]))!);
    });
  }

  async image(id: string): Promise<BrandingImage | undefined> {
    const row = await this.sql.get(`SELECT ${IMAGE_COLUMNS} FROM branding_images WHERE id = $1`, [id]);
    return row && decodeBrandingImage(row);
  }

  async settings(): Promise<StoredBranding | undefined> {
    const row = await this.sql.get(`SELECT ${BRANDING_COLUMNS} FROM sign_in_branding WHERE id = 1`);
    return row && decodeBranding(row);
  }

  async putSettings(b: SignInBranding, at: string, audit: (before: StoredBranding | undefined) => NewAuditEntry): Promise<BrandingSave> {
    return this.sql.tx(async (q) => {
      if (b.logoImageId !== null && !(await q.get('SELECT 1 FROM branding_images WHERE id = $1 FOR KEY SHARE', [b.logoImageId])))
        return { ok: false, reason: 'unknown_image' } as const;
      const row = await q.get(`SELECT ${BRANDING_COLUMNS} FROM sign_in_branding WHERE id = 1 FOR UPDATE`);
      const before = row && decodeBranding(row);
      await q.run(
        `INSERT INTO sign_in_branding (id, ${BRANDING_COLUMNS}) VALUES (1, $1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET logo_image_id = excluded.logo_image_id, background_color = excluded.background_color,
           button_color = excluded.button_color, message = excluded.message, updated_at = excluded.updated_at`,
        brandingValues(b, at),
      );
      await PgAuditLogStore.insert(q, audit(before));
      return { ok: true, before } as const;
    });
  }
}
