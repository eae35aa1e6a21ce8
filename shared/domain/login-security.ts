// Login security: the auth log's entries, and an account's settings for lockouts and session lifetimes.
export const AUTH_RESULTS = ['success', 'failure', 'throttled'] as const;
export type AuthResult = (typeof AUTH_RESULTS)[number];

/** One login attempt, recorded whatever its outcome. */
export interface AuthLogEntry {
  id: number;
  /** The account of the user the email named; null when it named none. */
  accountId: number | null;
  /** The user the email named, when one did. */
  userId: number | null;
  /** As typed. */
  email: string;
  address: string;
  userAgent: string;
  result: AuthResult;
  at: string;
}

/** An account's login settings; the product's defaults (config `dashboard`) stand where it has set none. */
export interface LoginSettings {
  /** Failed logins per email within the window before further attempts are refused. */
  failuresPerEmail: number;
  windowMinutes: number;
  /** A session unused for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after its login, however used. */
  sessionAbsoluteHours: number;
}

/** Bounds of each setting: an account may tighten or loosen within them, never switch a protection off. */
export const LOGIN_SETTING_BOUNDS: Readonly<Record<keyof LoginSettings, { min: number; max: number }>> = {
  failuresPerEmail: { min: 3, max: 50 },
  windowMinutes: { min: 1, max: 1440 },
  sessionIdleMinutes: { min: 5, max: 10_080 },
  sessionAbsoluteHours: { min: 1, max: 720 },
};

export interface AuthStats {
  attempts: number;
  failures: number;
  /** Attempts refused because a threshold was passed. */
  lockouts: number;
}
