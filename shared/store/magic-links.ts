// The magic-link repository: sign-in links mailed to users, found by their token's hash (the token itself is never
// stored), one unused link per user (a new one replaces the others), each used once: using one is a single UPDATE
// fenced on its being unused and unexpired, so of two uses at once one only succeeds.
export interface NewMagicLink {
  userId: number;
  /** sha256 of the link's token, hex. */
  tokenHash: string;
  /** ISO times. */
  at: string;
  expiresAt: string;
}

export interface MagicLinkRepository {
  /** Stores a new link; the user's unused links are removed in the same transaction. */
  create(l: NewMagicLink): Promise<void>;
  /** Removes a link (one whose mail could not be sent); false when there was none. */
  remove(tokenHash: string): Promise<boolean>;
  /** Marks the link used if it is unused and not expired at `at`; its user's id, or undefined (nothing changes). */
  use(tokenHash: string, at: string): Promise<number | undefined>;
}
