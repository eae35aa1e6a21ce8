// Key values: generated with 32 random bytes, shown once, stored only as a SHA-256 hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyKind = 'sending' | 'admin';

export const SENDING_PREFIX = 'tern_';
export const ADMIN_PREFIX = 'tern_admin_';

export function generateKey(kind: KeyKind): string {
  for (;;) {
    const body = randomBytes(32).toString('base64url');
    // A sending key must never look like an admin key.
    if (kind === 'sending' && body.startsWith('admin_')) continue;
    return (kind === 'admin' ? ADMIN_PREFIX : SENDING_PREFIX) + body;
  }
}

/** The kind a presented value claims to be, or null when it is not a Tern key at all. */
export function kindOf(value: string): KeyKind | null {
  if (value.startsWith(ADMIN_PREFIX)) return 'admin';
  if (value.startsWith(SENDING_PREFIX)) return 'sending';
  return null;
}

export function hashKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The visible ends of a key for masked listings: prefix plus four characters, and the last four. */
export function keyEnds(value: string): { start: string; end: string } {
  const prefixLength = kindOf(value) === 'admin' ? ADMIN_PREFIX.length : SENDING_PREFIX.length;
  return { start: value.slice(0, prefixLength + 4), end: value.slice(-4) };
}

export function maskKey(start: string, end: string): string {
  return `${start}${'*'.repeat(8)}${end}`;
}
