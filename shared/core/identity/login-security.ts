// Login security for an account's owners and admins: its login settings (lockout threshold, session
// lifetimes; the product's defaults where it has set none), the auth log, and quick stats over it.
import type { PageOf, PageRequest } from '../../store/paging.js';
import {
  LOGIN_SETTING_BOUNDS,
  LOGIN_SETTING_DEFAULTS,
  type AuthLogEntry,
  type AuthStats,
  type LoginSettings,
  type NumericLoginSetting,
} from '../../domain/login-security.js';
import { isAccountRole, isOperator } from '../../domain/user.js';
import { landingOf, NO_REDIRECTS, redirectProblems, type SignInRedirects } from '../../domain/sign-in-redirects.js';
import type { AuthLogFilter } from '../../store/login-security.js';
import { auditEntry, type AuditActor } from '../audit-log.js';
import type { User } from '../../domain/user.js';
import type { JsonValue } from '../../domain/audit-log.js';

/** The settings as the audit log keeps them. */
const settingsSnapshot = (s: LoginSettings): JsonValue => ({ ...s, twoStepRoles: [...s.twoStepRoles] });
const redirectsSnapshot = (r: SignInRedirects): JsonValue => ({ defaultLogin: r.defaultLogin, defaultLogout: r.defaultLogout, rules: r.rules.map((x) => ({ ...x })) });

/** Who the audit log names for a change: an operator as itself, an account's owner or admin as that account's user. */
const actorOf = (user: User): AuditActor => (isOperator(user) ? { kind: 'operator', operator: user } : { kind: 'account_user', user });
import { accountOfUser, isoAt, type StoreDeps } from './deps.js';
import { granted, invalidField, invalidFields, refused, type Identified } from './refusals.js';
import type { FieldProblem } from '../management-refusals.js';
import type { Logger } from '../../log.js';

/** A quick-stats range: the last N days, this calendar month (UTC), or everything recorded. */
export type StatsRange = { days: number } | { period: 'this_month' | 'all_time' };

export interface QuickStats {
  last24h: AuthStats;
  last7d: AuthStats;
  /** The range asked for, from when (ISO; the epoch for all time). */
  range: StatsRange & { since: string; stats: AuthStats };
}

/** A change of login settings: any of them, the rest kept. */
export type LoginSettingsChange = Partial<LoginSettings>;

const DAY_MS = 86_400_000;

export class LoginSecurity {
  constructor(private readonly d: StoreDeps) {}

  /** The settings in force for an account (undefined: an attempt that named no user, which gets the product's). */
  async effective(accountId: number | undefined): Promise<LoginSettings> {
    const c = this.d.config.dashboard;
    // Read even without an account (id 0 never exists), so that a login does the same work either way.
    const stored = await this.d.store.loginSettings.get(accountId ?? 0);
    return (
      stored ?? {
        failuresPerEmail: c.login.failuresPerEmail,
        windowMinutes: c.login.windowMinutes,
        sessionIdleMinutes: c.session.idleMinutes,
        sessionAbsoluteHours: c.session.absoluteHours,
        ...LOGIN_SETTING_DEFAULTS,
      }
    );
  }

  async settings(user: User): Promise<Identified<LoginSettings>> {
    const accountId = await this.accountAdminOf(user);
    return accountId === undefined ? forbidden() : granted(await this.effective(accountId));
  }

  /** Changes the settings given; every value is checked (numbers against their bounds) and nothing changes when one is wrong. */
  async updateSettings(user: User, change: LoginSettingsChange, log: Logger): Promise<Identified<LoginSettings>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    // Every setting is checked, so a form can say at once all that is wrong with it.
    const [first, ...more] = settingProblems(change);
    if (first) return invalidFields([first, ...more]);
    const current = await this.effective(accountId);
    const merged = { ...current, ...definedOnly(change) };
    const at = isoAt(this.d.now());
    // A change that weakens sign-in (no lockout mail, no two-step, longer sessions) is what an intruder would make:
    // it is in the platform's audit log, with what it replaced (the stored settings, else the defaults then in
    // force), in the change's transaction.
    const stored = await this.d.store.loginSettings.put(accountId, merged, (before) =>
      auditEntry(
        actorOf(user),
        {
          action: 'login_settings.update',
          target: { kind: 'tenant', id: String(accountId) },
          before: settingsSnapshot(before ?? current),
          after: settingsSnapshot(merged),
          reason: '',
        },
        at,
      ),
    );
    log.info({ account: accountId, user: user.id, settings: stored }, 'login settings changed');
    return granted(stored);
  }

  /** The retention sweep: each account's auth log entries older than its chosen days (the default's for the rest). */
  async sweepRetention(log: Logger): Promise<number> {
    const now = this.d.now();
    const cutoff = (days: number) => isoAt(now - days * DAY_MS);
    const chosen = await this.d.store.loginSettings.retentions();
    const byDays = new Map<number, number[]>();
    for (const { accountId, days } of chosen) byDays.set(days, [...(byDays.get(days) ?? []), accountId]);
    let removed = await this.d.store.authLog.removeBefore(cutoff(LOGIN_SETTING_DEFAULTS.logRetentionDays), { exceptAccounts: chosen.map((c) => c.accountId) });
    for (const [days, accounts] of byDays) removed += await this.d.store.authLog.removeBefore(cutoff(days), { accounts });
    const challenges = await this.d.store.twoStepChallenges.removeExpired(isoAt(now - DAY_MS));
    // Spent single sign-on tokens are kept past their expiry only as long as a clock's drift could matter.
    const ssoTokens = await this.d.store.singleSignOn.removeSpentBefore(isoAt(now - DAY_MS));
    if (removed || challenges || ssoTokens) log.info({ removed, challenges, ssoTokens }, 'auth log retention sweep');
    return removed;
  }

  async authLog(user: User, page: PageRequest, filter: AuthLogFilter = {}): Promise<Identified<PageOf<AuthLogEntry>>> {
    const accountId = await this.accountAdminOf(user);
    return accountId === undefined ? forbidden() : granted(await this.d.store.authLog.list(accountId, page, filter));
  }

  /** Deletes one entry; never one of the deleting user's own failed or refused attempts (the traces of an attack on them). */
  async deleteEntry(user: User, id: number): Promise<Identified<void>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    const notFound = refused<void>({ kind: 'not_found', what: 'auth_log_entry', message: 'Log entry not found' });
    // Entries never change once recorded: what is read here is what the delete removes.
    const entry = await this.d.store.authLog.get(accountId, id);
    if (!entry) return notFound;
    if (entry.userId === user.id && entry.result !== 'success')
      return invalidField('id', 'A failed or refused attempt on your own email cannot be deleted by you: another owner or admin may.');
    if (!(await this.d.store.authLog.remove(accountId, id))) return notFound;
    return granted(undefined);
  }

  /** Deletes every entry of the account's log: its owners only, with an entry in the platform's audit log, in one transaction. */
  async truncate(user: User, log: Logger): Promise<Identified<{ removed: number }>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined || user.role !== 'owner') return refused({ kind: 'forbidden', need: 'account_owner' });
    const at = isoAt(this.d.now());
    const removed = await this.d.store.authLog.truncate(accountId, (n) =>
      auditEntry(
        { kind: 'account_user', user },
        { action: 'auth_log.truncate', target: { kind: 'tenant', id: String(accountId) }, before: { entries: n }, after: { entries: 0 }, reason: '' },
        at,
      ),
    );
    log.info({ account: accountId, user: user.id, removed }, 'auth log truncated');
    return granted({ removed });
  }

  /** Attempts, failures and lockouts over the last 24 hours and 7 days, and over the range asked for. */
  async quickStats(user: User, range: StatsRange = { days: 7 }): Promise<Identified<QuickStats>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    const now = this.d.now();
    const [last24h, last7d, inRange] = await Promise.all([
      this.d.store.authLog.stats(accountId, isoAt(now - DAY_MS)),
      this.d.store.authLog.stats(accountId, isoAt(now - 7 * DAY_MS)),
      this.d.store.authLog.stats(accountId, rangeStart(range, now)),
    ]);
    return granted({ last24h, last7d, range: { ...range, since: rangeStart(range, now), stats: inRange } });
  }

  async redirects(user: User): Promise<Identified<SignInRedirects>> {
    const accountId = await this.accountAdminOf(user);
    return accountId === undefined ? forbidden() : granted((await this.d.store.loginSettings.redirects(accountId)) ?? NO_REDIRECTS);
  }

  /** Replaces where the account's users land; every path must be one of this site as written, or nothing changes. */
  async updateRedirects(user: User, r: SignInRedirects, log: Logger): Promise<Identified<SignInRedirects>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    const [first, ...more] = redirectProblems(r);
    if (first) return invalidFields([first, ...more]);
    const at = isoAt(this.d.now());
    await this.d.store.loginSettings.putRedirects(accountId, r, at, (before) =>
      auditEntry(
        actorOf(user),
        {
          action: 'sign_in_redirects.update',
          target: { kind: 'tenant', id: String(accountId) },
          before: before ? redirectsSnapshot(before) : null,
          after: redirectsSnapshot(r),
          reason: '',
        },
        at,
      ),
    );
    log.info({ account: accountId, user: user.id, rules: r.rules.length }, 'sign-in redirects changed');
    return granted(r);
  }

  /** Where `user` lands after signing in or out, by its account's rules; null: the product's default (and for an operator). */
  async landing(user: User, after: 'login' | 'logout'): Promise<string | null> {
    if (isOperator(user)) return null;
    const accountId = await accountOfUser(this.d, user);
    const redirects = accountId === undefined ? undefined : await this.d.store.loginSettings.redirects(accountId);
    return redirects ? landingOf(redirects, user.role, after) : null;
  }

  /** The account whose login security `user` may manage: an owner or admin on the account itself, not on a team. */
  private async accountAdminOf(user: User): Promise<number | undefined> {
    if (user.role !== 'owner' && user.role !== 'admin') return undefined;
    const team = await this.d.store.teams.get(user.teamId);
    return team && team.parentId === null ? team.id : undefined;
  }
}

const forbidden = <T>(): Identified<T> => refused({ kind: 'forbidden', need: 'account_admin' });

function rangeStart(range: StatsRange, now: number): string {
  if ('days' in range) return isoAt(now - range.days * DAY_MS);
  if (range.period === 'all_time') return isoAt(0);
  const d = new Date(now);
  return isoAt(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

const NUMERIC: readonly NumericLoginSetting[] = Object.keys(LOGIN_SETTING_BOUNDS) as NumericLoginSetting[];

/** Every problem of a change: numbers out of their bounds, flags that are not booleans, roles that are not an account's. */
function settingProblems(change: LoginSettingsChange): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(change) as Array<[keyof LoginSettings, unknown]>) {
    if (value === undefined) continue;
    if ((NUMERIC as readonly string[]).includes(name)) {
      const bounds = LOGIN_SETTING_BOUNDS[name as NumericLoginSetting];
      if (!Number.isInteger(value) || (value as number) < bounds.min || (value as number) > bounds.max)
        problems.push({ field: name, message: `${name} must be an integer from ${bounds.min} to ${bounds.max}` });
    } else if (name === 'notifyOnLockout' || name === 'applicationPasswords' || name === 'magicLink') {
      if (typeof value !== 'boolean') problems.push({ field: name, message: `${name} must be true or false` });
    } else if (name === 'twoStepRoles') {
      const roles = value as readonly string[];
      if (!Array.isArray(roles) || !roles.every(isAccountRole) || new Set(roles).size !== roles.length)
        problems.push({ field: name, message: `${name} must list account roles (owner, admin, viewer), each once` });
    } else problems.push({ field: name, message: `${name} is not a login setting` });
  }
  return problems;
}

function definedOnly(change: LoginSettingsChange): Partial<LoginSettings> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
}
