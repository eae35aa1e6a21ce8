// How the dashboard shows the identity side's things: a user and its profile, an application password (WordPress's
// fields), an auth-log entry and login settings. Dates as WordPress gives them (RFC 3339 without a zone: the
// site is UTC), but the profile's created_at as /v2 gives times.
import { isOperator, type ApplicationPassword, type User } from '../../../shared/domain/user.js';
import type { AuthLogEntry, AuthStats, LoginSettings } from '../../../shared/domain/login-security.js';
import type { Profile } from '../../../shared/core/identity/index.js';

/** `2026-11-23T19:01:17`: WordPress's mysql_to_rfc3339 of a UTC time. */
export const wpDate = (iso: string): string => iso.slice(0, 19);

export const userView = (u: User) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  role: u.role,
  team_id: isOperator(u) ? null : u.teamId,
  must_change_password: u.mustChangePassword,
  registered_date: wpDate(u.createdAt),
});

/** GET /profile: the user as userView shows it, with its account and its creation time as /v2 gives times (ISO). */
export const profileView = (p: Profile) => ({ ...userView(p.user), account_id: p.accountId, created_at: p.user.createdAt });

export const applicationPasswordView = (p: Pick<ApplicationPassword, 'uuid' | 'appId' | 'name' | 'createdAt'> & Partial<ApplicationPassword>) => ({
  uuid: p.uuid,
  app_id: p.appId ?? '',
  name: p.name,
  created: wpDate(p.createdAt),
  last_used: p.lastUsedAt ? wpDate(p.lastUsedAt) : null,
  last_ip: p.lastIp ?? null,
});

export const authLogView = (e: AuthLogEntry) => ({
  id: e.id,
  date: wpDate(e.at),
  email: e.email,
  address: e.address,
  user_agent: e.userAgent,
  result: e.result,
  method: e.method,
  user_id: e.userId,
});

export const loginSettingsView = (s: LoginSettings) => ({
  failures_per_email: s.failuresPerEmail,
  window_minutes: s.windowMinutes,
  session_idle_minutes: s.sessionIdleMinutes,
  session_absolute_hours: s.sessionAbsoluteHours,
  notify_on_lockout: s.notifyOnLockout,
  log_retention_days: s.logRetentionDays,
  application_passwords: s.applicationPasswords,
  two_step_roles: [...s.twoStepRoles],
  magic_link: s.magicLink,
});

export const authStatsView = (s: AuthStats) => ({ attempts: s.attempts, failures: s.failures, lockouts: s.lockouts });
