// The sign-in page's branding (FluentAuth's auth customizer): the platform's logo, two colours and a message on
// the pages before signing in. The images are uploaded (PNG, JPEG or WebP, as their content says: never SVG,
// which can carry script) and named by their content's hash, so an image's URL never changes meaning and may be
// cached for good. The colours become a small stylesheet served from Tern itself (the pages' Content-Security-
// Policy allows no inline style); the message is plain text, escaped wherever it is shown.
import { createHash } from 'node:crypto';

/** The image types a logo may have, with the extension its public path ends in. */
export const BRANDING_IMAGE_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;
export type BrandingImageType = keyof typeof BRANDING_IMAGE_TYPES;

export const isBrandingImageType = (mime: string): mime is BrandingImageType => Object.hasOwn(BRANDING_IMAGE_TYPES, mime);

/** An uploaded image as stored: its id is the content's SHA-256 in hex (the first 32 digits). */
export interface BrandingImage {
  id: string;
  contentType: BrandingImageType;
  content: Buffer;
  /** Null once the uploading operator's user is removed. */
  uploadedBy: number | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export const BRANDING_IMAGE_ID = /^[0-9a-f]{32}$/;

export const brandingImageIdOf = (content: Buffer): string => createHash('sha256').update(content).digest('hex').slice(0, 32);

/** The public path an image is served at: `/branding/{id}.{ext}`. */
export const BRANDING_PREFIX = '/branding/';
export const brandingImagePath = (image: Pick<BrandingImage, 'id' | 'contentType'>): string => `${BRANDING_PREFIX}${image.id}.${BRANDING_IMAGE_TYPES[image.contentType]}`;

/** The branding an operator sets: null or '' for each part means Tern's own look. */
export interface SignInBranding {
  /** An uploaded image's id; null: no logo. */
  logoImageId: string | null;
  /** `#rrggbb`: the page's background; null: the stylesheet's (light or dark, as the system is). */
  backgroundColor: string | null;
  /** `#rrggbb`: the main button's colour (its text black or white, whichever reads better); null: Tern's. */
  buttonColor: string | null;
  /** Plain text above the form (a notice, the platform's name); '' for none. */
  message: string;
}

export const DEFAULT_BRANDING: SignInBranding = { logoImageId: null, backgroundColor: null, buttonColor: null, message: '' };

export const BRANDING_MESSAGE_MAX = 500;
export const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The branding as a page shows it: the logo's path, the message, the stylesheet's CSS (undefined: none). */
export interface BrandingLook {
  logoPath: string | null;
  message: string;
  css: string | undefined;
}

/** Black or white, whichever contrasts more with `#rrggbb` (WCAG's relative luminance). */
export function textColourOn(colour: string): '#000000' | '#ffffff' {
  const channel = (i: number) => {
    const c = parseInt(colour.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // Contrast with white is 1.05 / (L + 0.05), with black (L + 0.05) / 0.05: white wins below L ≈ 0.179.
  return luminance > 0.179 ? '#000000' : '#ffffff';
}

/** The stylesheet of the colours set (only checked `#rrggbb` values are ever written into it); undefined: none. */
export function brandingCss(b: Pick<SignInBranding, 'backgroundColor' | 'buttonColor'>): string | undefined {
  const rules: string[] = [];
  if (b.backgroundColor !== null) rules.push(`body { background: ${b.backgroundColor.toLowerCase()}; }`);
  if (b.buttonColor !== null) {
    const c = b.buttonColor.toLowerCase();
    rules.push(`button.primary, .button.primary { background: ${c}; border-color: ${c}; color: ${textColourOn(c)}; }`);
  }
  return rules.length === 0 ? undefined : `${rules.join('\n')}\n`;
}

/** The stylesheet's path, named by its content's hash (a new colour is a new URL). */
export const brandingCssPath = (css: string): string => `${BRANDING_PREFIX}sign-in.${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`;
