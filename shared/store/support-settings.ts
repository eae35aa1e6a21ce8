// Where tickets go, as both engines keep it: one platform setting whose value is JSON text.
import { Type } from '@sinclair/typebox';
import { jsonDecoder, Nullable, type Row } from './decode.js';
import type { SupportSettings } from '../domain/support.js';

const decodeValue = jsonDecoder('support settings', Type.Object({ forward_url: Nullable(Type.String()), forward_secret_enc: Type.Optional(Nullable(Type.String())) }));

/** The setting's row (value, updated_at), or the default when none is stored: kept in Tern only. */
export function decodeSettings(row: Row | undefined): SupportSettings {
  if (!row || typeof row.value !== 'string') return { forwardUrl: null, forwardSecretEnc: null, updatedAt: null };
  const value = decodeValue(row.value);
  // Settings stored before forwarding was built have no secret.
  return { forwardUrl: value.forward_url, forwardSecretEnc: value.forward_secret_enc ?? null, updatedAt: typeof row.updated_at === 'string' ? row.updated_at : null };
}

export const settingsValue = (s: SupportSettings): string => JSON.stringify({ forward_url: s.forwardUrl, forward_secret_enc: s.forwardSecretEnc });
