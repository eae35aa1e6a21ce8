// Login security for an account's owners and admins: its login settings (lockout threshold, session
// lifetimes; the product's defaults where it has set none), the auth log, and quick stats over it.
import type { PageOf, PageRequest } from '../../store/paging.js';
import { LOGIN_SETTING_BOUNDS, type AuthLogEntry, type AuthStats, type LoginSettings } from '../../domain/login-security.js';
import type { User } from '../../domain/user.js';
import { isoAt, type StoreDeps } from './deps.js';
import { granted, invalidFields, refused, type Identified } from './refusals.js';
import type { FieldProblem } from '../management-refusals.js';
import type { Logger } from '../../log.js';

export interface QuickStats {
  last24h: AuthStats;
  last7d: AuthStats;
}

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
      }
    );
  }

  async settings(user: User): Promise<Identified<LoginSettings>> {
    const accountId = await this.accountAdminOf(user);
    return accountId === undefined ? forbidden() : granted(await this.effective(accountId));
  }

  /** Changes the settings given; every value is checked against its bounds and nothing changes when one is out. */
  async updateSettings(user: User, change: Partial<LoginSettings>, log: Logger): Promise<Identified<LoginSettings>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    // Every setting is checked, so a form can say at once all that is wrong with it.
    const problems: FieldProblem[] = [];
    for (const [name, value] of Object.entries(change) as Array<[keyof LoginSettings, number | undefined]>) {
      const bounds = LOGIN_SETTING_BOUNDS[name];
      if (!bounds) problems.push({ field: name, message: `${name} is not a login setting` });
      else if (value !== undefined && (!Number.isInteger(value) || value < bounds.min || value > bounds.max))
        problems.push({ field: name, message: `${name} must be an integer from ${bounds.min} to ${bounds.max}` });
    }
    const [first, ...more] = problems;
    if (first) return invalidFields([first, ...more]);
    const merged = { ...(await this.effective(accountId)), ...definedOnly(change) };
    const stored = await this.d.store.loginSettings.put(accountId, merged);
    log.info({ account: accountId, user: user.id, settings: stored }, 'login settings changed');
    return granted(stored);
  }

  async authLog(user: User, page: PageRequest): Promise<Identified<PageOf<AuthLogEntry>>> {
    const accountId = await this.accountAdminOf(user);
    return accountId === undefined ? forbidden() : granted(await this.d.store.authLog.list(accountId, page));
  }

  async deleteEntry(user: User, id: number): Promise<Identified<void>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    if (!(await this.d.store.authLog.remove(accountId, id))) return refused({ kind: 'not_found', what: 'auth_log_entry', message: 'Log entry not found' });
    return granted(undefined);
  }

  async truncate(user: User, log: Logger): Promise<Identified<{ removed: number }>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    const removed = await this.d.store.authLog.truncate(accountId);
    log.info({ account: accountId, user: user.id, removed }, 'auth log truncated');
    return granted({ removed });
  }

  async quickStats(user: User): Promise<Identified<QuickStats>> {
    const accountId = await this.accountAdminOf(user);
    if (accountId === undefined) return forbidden();
    const now = this.d.now();
    const [last24h, last7d] = await Promise.all([
      this.d.store.authLog.stats(accountId, isoAt(now - DAY_MS)),
      this.d.store.authLog.stats(accountId, isoAt(now - 7 * DAY_MS)),
    ]);
    return granted({ last24h, last7d });
  }

  /** The account whose login security `user` may manage: an owner or admin on the account itself, not on a team. */
  private async accountAdminOf(user: User): Promise<number | undefined> {
    if (user.role !== 'owner' && user.role !== 'admin') return undefined;
    const team = await this.d.store.teams.get(user.teamId);
    return team && team.parentId === null ? team.id : undefined;
  }
}

const forbidden = <T>(): Identified<T> => refused({ kind: 'forbidden', need: 'account_admin' });

function definedOnly(change: Partial<LoginSettings>): Partial<LoginSettings> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
}
