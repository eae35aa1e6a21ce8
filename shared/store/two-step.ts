// The two-step sign-in repository: challenges made when a password was right and a code was mailed, found by
// their token's hash, each used at most once, until it expires, within a number of tries. Every decision is
// made in one write, so two tries of one challenge at once never both succeed.
export interface NewTwoStepChallenge {
  /** sha256 of the challenge token (hex): the sign-in form holds the token. */
  tokenHash: string;
  userId: number;
  /** sha256 of the token and the code together (hex). */
  codeHash: string;
  /** ISO times. */
  at: string;
  expiresAt: string;
}

/** What a try of a code came to: the user signs in; or why not, and for a wrong code how many tries are left. */
export type TwoStepTry =
  | { outcome: 'used'; userId: number }
  | { outcome: 'wrong'; userId: number; triesLeft: number }
  /** Expired, used already, or out of tries: the user signs in again for a new code. */
  | { outcome: 'spent'; userId: number }
  | { outcome: 'unknown' };

export interface TwoStepChallengeRepository {
  /** Stores a challenge; the user's unused ones are removed in the same transaction (the newest code only works). */
  create(c: NewTwoStepChallenge): Promise<void>;
  /** The user a live or spent challenge names (unknown: undefined), so a try can be throttled before it is checked. */
  userOf(tokenHash: string): Promise<number | undefined>;
  /**
   * Tries a code: used when the challenge is unused, unexpired at `at`, has had fewer than `maxTries` wrong tries
   * and the code's hash matches (marked used in the same UPDATE); a wrong code counts a try.
   */
  attempt(tokenHash: string, codeHash: string, at: string, maxTries: number): Promise<TwoStepTry>;
  /** Removes challenges expired before `before` (ISO); how many. */
  removeExpired(before: string): Promise<number>;
}
