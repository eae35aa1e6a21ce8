// SHA-256 of a text, in hex: how secrets are stored (session and invitation tokens, application passwords) and
// how personal values become Redis key parts (an email, an address) without being kept in clear.
import { createHash } from 'node:crypto';

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
