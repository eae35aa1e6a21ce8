// The single sign-on token (shared/domain/single-sign-on.ts): its claims as base64url JSON, signed with
// HMAC-SHA256 under the pair's shared secret; verified in constant time before anything in it is believed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SITE_ID_PATTERN, type SsoClaims } from '../../domain/single-sign-on.js';

const b64 = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

const macOf = (secret: string, payload: string): Buffer => createHmac('sha256', secret).update(`tern-sso.v1.${payload}`).digest();

/** The token: `v1.<claims as base64url JSON>.<HMAC-SHA256 of them under the pair's secret>`. */
export function signSsoToken(claims: SsoClaims, secret: string): string {
  const payload = b64(JSON.stringify(claims));
  return `v1.${payload}.${b64(macOf(secret, payload))}`;
}

/** The claims as written, before any check: only to find the pair's secret (nothing in them is trusted yet). */
export function unverifiedSiteId(token: string): string | undefined {
  const claims = decodeClaims(token.split('.')[1] ?? '');
  return claims?.sid;
}

/** The claims when the signature is the pair's (compared in constant time); undefined for anything else. */
export function verifySsoToken(token: string, secret: string): SsoClaims | undefined {
  const [version, payload, mac, ...rest] = token.split('.');
  if (version !== 'v1' || !payload || !mac || rest.length) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const expected = macOf(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return decodeClaims(payload);
}

function decodeClaims(payload: string): SsoClaims | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const c = raw as Record<string, unknown>;
  const ok =
    typeof c.sid === 'string' &&
    SITE_ID_PATTERN.test(c.sid) &&
    typeof c.sub === 'string' &&
    c.sub.length <= 254 &&
    typeof c.jti === 'string' &&
    /^[0-9a-f]{32}$/.test(c.jti) &&
    typeof c.exp === 'number' &&
    Number.isSafeInteger(c.exp) &&
    (c.to === null || typeof c.to === 'string');
  return ok ? { sid: c.sid as string, sub: c.sub as string, jti: c.jti as string, exp: c.exp as number, to: c.to as string | null } : undefined;
}
