// The auth log's and login settings' rows as both engines store them (the same columns in SQLite and
// PostgreSQL), decoded. The auth stats' row is each engine's own: SQLite sums booleans (NULL over no rows), PostgreSQL counts.
import { Type } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, Text, type Row } from './decode.js';
import { AUTH_METHODS, AUTH_RESULTS, type AuthLogEntry, type LoginSettings } from '../domain/login-security.js';
import { ACCOUNT_ROLES, isAccountRole, type AccountRole } from '../domain/user.js';
import type { SignInRedirects } from '../domain/sign-in-redirects.js';

const EntryRow = Type.Object({
  id: Int,
  account_id: Nullable(Int),
  user_id: Nullable(Int),
  email: Text,
  address: Text,
  user_agent: Text,
  result: OneOf(AUTH_RESULTS),
  method: OneOf(AUTH_METHODS),
  at: Text,
});

export const decodeEntry = rowDecoder('auth log entry', EntryRow, (r): AuthLogEntry => ({
  id: r.id,
  accountId: r.account_id,
  userId: r.user_id,
  email: r.email,
  address: r.address,
  userAgent: r.user_agent,
  result: r.result,
  method: r.method,
  at: r.at,
}));

const SettingsRow = Type.Object({
  failures_per_email: Int,
  window_minutes: Int,
  session_idle_minutes: Int,
  session_absolute_hours: Int,
  notify_on_lockout: Flag,
  log_retention_days: Int,
  application_passwords: Flag,
  two_step_roles: Text,
  magic_link: Flag,
});

/** The columns both engines read settings from. */
export const SETTINGS_COLUMNS =
  'failures_per_email, window_minutes, session_idle_minutes, session_absolute_hours, notify_on_lockout, log_retention_days, application_passwords, two_step_roles, magic_link';

/** The roles as stored: comma-separated, in the order given; an unknown one fails the decode as a corrupt row. */
export const encodeRoles = (roles: readonly AccountRole[]): string => roles.join(',');

const decodeRoles = (stored: string): AccountRole[] =>
  stored === ''
    ? []
    : stored.split(',').map((role) => {
        if (!isAccountRole(role)) throw new Error(`login settings: unknown role ${JSON.stringify(role)} in two_step_roles`);
        return role;
      });

export const decodeSettings = rowDecoder('login settings', SettingsRow, (r): LoginSettings => ({
  failuresPerEmail: r.failures_per_email,
  windowMinutes: r.window_minutes,
  sessionIdleMinutes: r.session_idle_minutes,
  sessionAbsoluteHours: r.session_absolute_hours,
  notifyOnLockout: r.notify_on_lockout === 1,
  logRetentionDays: r.log_retention_days,
  applicationPasswords: r.application_passwords === 1,
  twoStepRoles: decodeRoles(r.two_step_roles),
  magicLink: r.magic_link === 1,
}));

/** The values of an upsert, in SETTINGS_COLUMNS' order. */
export const settingsValues = (s: LoginSettings): Array<string | number> => [
  s.failuresPerEmail,
  s.windowMinutes,
  s.sessionIdleMinutes,
  s.sessionAbsoluteHours,
  s.notifyOnLockout ? 1 : 0,
  s.logRetentionDays,
  s.applicationPasswords ? 1 : 0,
  encodeRoles(s.twoStepRoles),
  s.magicLink ? 1 : 0,
];

const decodeRetention = rowDecoder('login log retention', Type.Object({ account_id: Int, log_retention_days: Int }), (r) => ({
  accountId: r.account_id,
  days: r.log_retention_days,
}));

export const decodeRetentions = (rows: readonly Row[]): Array<{ accountId: number; days: number }> => rows.map(decodeRetention);

const Path = Nullable(Text);
const Redirects = Type.Object({
  defaultLogin: Path,
  defaultLogout: Path,
  rules: Type.Array(Type.Object({ role: OneOf(ACCOUNT_ROLES), login: Path, logout: Path })),
});

/** The redirects' JSON text as both engines store it. */
export const decodeRedirects = rowDecoder('sign-in redirects', Type.Object({ rules: Text }), (r): SignInRedirects => {
  const parsed = JSON.parse(r.rules) as unknown;
  return redirectsOf(parsed as Row);
});

const redirectsOf = rowDecoder('sign-in redirects JSON', Redirects, (r): SignInRedirects => r);
