// The sign-in page's branding in SQLite: images kept once per content (an insert that does nothing on the same
// id), the one branding row upserted with its audit entry in one transaction. Images are never deleted, so a
// logo found in the transaction stays there (the foreign key keeps it so too).
import type { Sql } from './sql.js';
import type { BrandingImage, SignInBranding } from '../../domain/branding.js';
import type { BrandingRepository, BrandingSave, StoredBranding } from '../branding.js';
import type { NewAuditEntry } from '../audit-log.js';
import { AuditLogStore } from './audit-log.js';
import { BRANDING_COLUMNS, brandingValues, decodeBranding, decodeBrandingImage, IMAGE_COLUMNS } from '../branding-row.js';

export class BrandingStore implements BrandingRepository {
  constructor(private readonly sql: Sql) {}

  async addImage(image: BrandingImage): Promise<BrandingImage> {
    return this.sql.tx(async (q) => {
      await q.run(`INSERT INTO branding_images (${IMAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, [
        image.id,
        image.contentType,
        image.content,
        image.uploadedBy,
        image.createdAt,
      ]);
      return decodeBrandingImage((await q.get(`SELECT ${IMAGE_COLUMNS} FROM branding_images WHERE id = ?`, [image.id]))!);
    });
  }

  async image(id: string): Promise<BrandingImage | undefined> {
    const row = await this.sql.get(`SELECT ${IMAGE_COLUMNS} FROM branding_images WHERE id = ?`, [id]);
    return row && decodeBrandingImage(row);
  }

  async settings(): Promise<StoredBranding | undefined> {
    const row = await this.sql.get(`SELECT ${BRANDING_COLUMNS} FROM sign_in_branding WHERE id = 1`);
    return row && decodeBranding(row);
  }

  async putSettings(b: SignInBranding, at: string, audit: (before: StoredBranding | undefined) => NewAuditEntry): Promise<BrandingSave> {
    return this.sql.tx(async (q) => {
      if (b.logoImageId !== null && !(await q.get('SELECT 1 FROM branding_images WHERE id = ?', [b.logoImageId]))) return { ok: false, reason: 'unknown_image' } as const;
      const row = await q.get(`SELECT ${BRANDING_COLUMNS} FROM sign_in_branding WHERE id = 1`);
      const before = row && decodeBranding(row);
      await q.run(
        `INSERT INTO sign_in_branding (id, ${BRANDING_COLUMNS}) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET logo_image_id = excluded.logo_image_id, background_color = excluded.background_color,
           button_color = excluded.button_color, message = excluded.message, updated_at = excluded.updated_at`,
        brandingValues(b, at),
      );
      await AuditLogStore.insert(q, audit(before));
      return { ok: true, before } as const;
    });
  }
}
