// The password-reset repository: links found by their token's hash, one unused link per user (a new one
// replaces the others), and using a link and setting the user's password as one change.
import type { PasswordReset } from '../domain/password-reset.js';

export interface NewPasswordReset {
  userId: number;
  /** sha256 of the link's token, hex. */
  tokenHash: string;
  /** ISO times. */
  at: string;
  expiresAt: string;
}

export interface PasswordResetRepository {
  /** Stores a new link; the user's unused links are removed in the same transaction. */
  create(r: NewPasswordReset): Promise<PasswordReset>;
  findByTokenHash(tokenHash: string): Promise<PasswordReset | undefined>;
  /** Removes a link (one whose mail could not be sent); false when there was none. */
  remove(tokenHash: string): Promise<boolean>;
  /**
   * In one transaction: the link, unused and not expired at `at`, is marked used and its user's password hash
   * replaced (the must-change flag cleared). Undefined when the link is unknown, used or expired (nothing changes);
   * of two uses at once, one only succeeds.
   */
  use(tokenHash: string, passwordHash: string, at: string): Promise<PasswordReset | undefined>;
}
