// The sign-in providers' and links' rows as both engines store them (the same columns), decoded.
import { Type } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { SOCIAL_PROVIDERS, type SocialProviderSettings } from '../domain/social-sign-in.js';
import type { SocialLink } from './social-sign-in.js';

export const PROVIDER_COLUMNS = 'provider, enabled, client_id, client_secret_enc, issuer, updated_at';
export const LINK_COLUMNS = 'provider, subject, user_id, linked_at';

export const decodeProvider = rowDecoder(
  'sign-in provider',
  Type.Object({ provider: OneOf(SOCIAL_PROVIDERS), enabled: Flag, client_id: Text, client_secret_enc: Nullable(Text), issuer: Nullable(Text), updated_at: Text }),
  (r): SocialProviderSettings => ({
    provider: r.provider,
    enabled: r.enabled === 1,
    clientId: r.client_id,
    clientSecretEnc: r.client_secret_enc,
    issuer: r.issuer,
    updatedAt: r.updated_at,
  }),
);

export const decodeLink = rowDecoder(
  'sign-in link',
  Type.Object({ provider: OneOf(SOCIAL_PROVIDERS), subject: Text, user_id: Int, linked_at: Text }),
  (r): SocialLink => ({ provider: r.provider, subject: r.subject, userId: r.user_id, linkedAt: r.linked_at }),
);

/** The settings' values in PROVIDER_COLUMNS' order. */
export const providerValues = (s: SocialProviderSettings): Array<string | number | null> => [
  s.provider,
  s.enabled ? 1 : 0,
  s.clientId,
  s.clientSecretEnc,
  s.issuer,
  s.updatedAt,
];
