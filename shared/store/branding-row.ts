// The branding's rows as both engines store them (the same columns), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { BRANDING_IMAGE_TYPES, type BrandingImage, type BrandingImageType, type SignInBranding } from '../domain/branding.js';
import type { StoredBranding } from './branding.js';

export const IMAGE_COLUMNS = 'id, content_type, content, uploaded_by, created_at';
export const BRANDING_COLUMNS = 'logo_image_id, background_color, button_color, message, updated_at';

export const decodeBrandingImage = rowDecoder(
  'branding image',
  Type.Object({
    id: Text,
    content_type: OneOf(Object.keys(BRANDING_IMAGE_TYPES) as BrandingImageType[]),
    content: Type.Uint8Array(),
    uploaded_by: Nullable(Int),
    created_at: Text,
  }),
  (r): BrandingImage => ({ id: r.id, contentType: r.content_type, content: Buffer.from(r.content), uploadedBy: r.uploaded_by, createdAt: r.created_at }),
);

export const decodeBranding = rowDecoder(
  'sign-in branding',
  Type.Object({ logo_image_id: Nullable(Text), background_color: Nullable(Text), button_color: Nullable(Text), message: Text, updated_at: Text }),
  (r): StoredBranding => ({
    logoImageId: r.logo_image_id,
    backgroundColor: r.background_color,
    buttonColor: r.button_color,
    message: r.message,
    updatedAt: r.updated_at,
  }),
);

/** The branding's values in BRANDING_COLUMNS' order, `at` last. */
export const brandingValues = (b: SignInBranding, at: string): Array<string | null> => [b.logoImageId, b.backgroundColor, b.buttonColor, b.message, at];
