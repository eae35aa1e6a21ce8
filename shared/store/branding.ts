// The branding repository: the images operators upload for the sign-in page (kept once per content: an upload of
// the same bytes is the same image) and the one branding row (absent: Tern's own look). A save of the branding is
// recorded with its audit entry in one transaction, and a logo that names no uploaded image is refused there.
import type { BrandingImage, SignInBranding } from '../domain/branding.js';
import type { NewAuditEntry } from './audit-log.js';

export interface StoredBranding extends SignInBranding {
  /** ISO 8601 UTC. */
  updatedAt: string;
}

/** The branding before the save (undefined: none was stored), or why nothing was saved. */
export type BrandingSave = { ok: true; before: StoredBranding | undefined } | { ok: false; reason: 'unknown_image' };

export interface BrandingRepository {
  /** Keeps an image; the same content again keeps the first upload (same id). The image as stored. */
  addImage(image: BrandingImage): Promise<BrandingImage>;
  image(id: string): Promise<BrandingImage | undefined>;
  /** The branding as stored; undefined until an operator saves one. */
  settings(): Promise<StoredBranding | undefined>;
  /** Stores the branding and `audit(before)` together, unless its logo names no uploaded image. */
  putSettings(b: SignInBranding, at: string, audit: (before: StoredBranding | undefined) => NewAuditEntry): Promise<BrandingSave>;
}
