// A password reset: a link a user asked for by mail (forgot password) that sets a new password once, until it
// expires. Only its token's sha256 is stored; a newer request replaces the user's unused links.
export interface PasswordReset {
  userId: number;
  /** ISO times. */
  createdAt: string;
  expiresAt: string;
  /** When the link set a password; null while unused. */
  usedAt: string | null;
}

/** What a link's token stands for now: a closed set, so each interface words every case. */
export const PASSWORD_RESET_STATES = ['valid', 'unknown', 'expired', 'used'] as const;
export type PasswordResetState = (typeof PASSWORD_RESET_STATES)[number];

/** The state of a stored reset at `nowMs` (a used link stays used after its expiry). */
export function passwordResetState(r: PasswordReset, nowMs: number): Exclude<PasswordResetState, 'unknown'> {
  if (r.usedAt !== null) return 'used';
  return Date.parse(r.expiresAt) <= nowMs ? 'expired' : 'valid';
}
