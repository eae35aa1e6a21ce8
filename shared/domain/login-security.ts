// Login security: the auth log's entries, and an account's settings for lockouts, session lifetimes, the log's
// retention, application passwords and two-step sign-in.
import type { AccountRole } from './user.js';
export const AUTH_RESULTS = ['success', 'failure', 'throttled'] as const;
export type AuthResult = (typeof AUTH_RESULTS)[number];
/**
 * How a sign-in was made: a password (and its two-step code), a provider (core/identity/social-sign-in.ts), a
 * token from a paired dashboard (single sign-on), or a link mailed to the user.
 */
export const AUTH_METHODS = ['password', 'google', 'github', 'sso', 'magic_link'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

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
  method: AuthMethod;
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
  /** Mail the account's owners when an email is locked out (the attempt that fills its window). */
  notifyOnLockout: boolean;
  /** The account's auth log entries older than this are deleted by the API's sweep. */
  logRetentionDays: number;
  /** Whether the account's users may authenticate with application passwords (off: every one is refused). */
  applicationPasswords: boolean;
  /** Users of these roles sign in with their password and then a one-time code mailed to them. */
  twoStepRoles: readonly AccountRole[];
  /** Whether the account's users may sign in by a single-use link mailed to them (not those of two-step roles). */
  magicLink: boolean;
}

export type NumericLoginSetting = 'failuresPerEmail' | 'windowMinutes' | 'sessionIdleMinutes' | 'sessionAbsoluteHours' | 'logRetentionDays';

/** Bounds of each numeric setting: an account may tighten or loosen within them, never switch a protection off. */
export const LOGIN_SETTING_BOUNDS: Readonly<Record<NumericLoginSetting, { min: number; max: number }>> = {
  failuresPerEmail: { min: 3, max: 50 },
  windowMinutes: { min: 1, max: 1440 },
  sessionIdleMinutes: { min: 5, max: 10_080 },
  sessionAbsoluteHours: { min: 1, max: 720 },
  logRetentionDays: { min: 1, max: 3650 },
};

/** What an account that has set nothing gets, beside the configured lockout and session values. */
export const LOGIN_SETTING_DEFAULTS = {
  notifyOnLockout: false,
  logRetentionDays: 90,
  applicationPasswords: true,
  twoStepRoles: [] as readonly AccountRole[],
  magicLink: false,
};

export interface AuthStats {
  attempts: number;
  failures: number;
  /** Attempts refused because a threshold was passed. */
  lockouts: number;
}
