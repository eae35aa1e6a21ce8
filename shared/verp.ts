// VERP return paths: bounces+<token>@send.<domain>, where the token names the recipient and carries an
// HMAC, so a bounce report can be matched to its recipient and nobody can forge one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { RETURN_PATH_LABEL } from './dns-records.js';

const MAC_BYTES = 10;

function mac(secret: Buffer, id: string): Buffer {
  return createHmac('sha256', secret).update(`verp:${id}`).digest().subarray(0, MAC_BYTES);
}

/** Local parts are case-insensitive in practice, so the token uses lower-case base32-like hex only. */
export function verpToken(recipientId: number, secret: Buffer): string {
  const id = recipientId.toString(36);
  return `${id}-${mac(secret, id).toString('hex')}`;
}

export function verpAddress(recipientId: number, domain: string, secret: Buffer): string {
  return `bounces+${verpToken(recipientId, secret)}@${RETURN_PATH_LABEL}.${domain}`;
}

/** The recipient id named by a VERP address, or null when the address is not ours or its MAC is wrong. */
export function parseVerp(address: string, secret: Buffer): number | null {
  const match = /^bounces\+([0-9a-z]+)-([0-9a-f]+)@/i.exec(address.trim());
  if (!match) return null;
  const [, id, given] = match as unknown as [string, string, string];
  const expected = mac(secret, id.toLowerCase());
  const actual = Buffer.from(given.toLowerCase(), 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  const recipientId = parseInt(id, 36);
  return Number.isSafeInteger(recipientId) ? recipientId : null;
}
