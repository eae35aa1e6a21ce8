// The login-security repository: the auth log (every login attempt) and each account's login settings.
import type { AuthLogEntry, AuthResult, AuthStats, LoginSettings } from '../domain/login-security.js';
import type { PageOf, PageRequest } from './paging.js';
import type { NewAuditEntry } from './audit-log.js';
import type { SignInRedirects } from '../domain/sign-in-redirects.js';

/** An attempt to record; a password's unless `method` says otherwise (a provider, single sign-on, a mailed link). */
export type NewAuthAttempt = Omit<AuthLogEntry, 'id' | 'method'> & { method?: AuthLogEntry['method'] };

/** Which entries a listing shows: any of these results; an email or address containing `search` (any case). */
export interface AuthLogFilter {
  results?: readonly AuthResult[];
  search?: string;
}

/** Whose entries a retention sweep deletes: these accounts' only, or every entry but these accounts' (no account's too). */
export type AuthLogScope = { accounts: readonly number[] } | { exceptAccounts: readonly number[] };

export interface AuthLogRepository {
  record(a: NewAuthAttempt): Promise<AuthLogEntry>;
  /** An account's entries, newest first. */
  list(accountId: number, page: PageRequest, filter?: AuthLogFilter): Promise<PageOf<AuthLogEntry>>;
  /** An entry of the account (entries never change once recorded). */
  get(accountId: number, id: number): Promise<AuthLogEntry | undefined>;
  /** Removes an entry of the account; false when it has none of that id. */
  remove(accountId: number, id: number): Promise<boolean>;
  /** Removes the entries in `scope` recorded before `before` (ISO); how many. */
  removeBefore(before: string, scope: AuthLogScope): Promise<number>;
  /** Removes every entry of an account; how many. `audit`'s entry (given how many) is recorded in the same transaction. */
  truncate(accountId: number, audit?: (removed: number) => NewAuditEntry): Promise<number>;
  /** An account's attempts at or after `since` (ISO), by result. */
  stats(accountId: number, since: string): Promise<AuthStats>;
}

export interface LoginSettingsRepository {
  get(accountId: number): Promise<LoginSettings | undefined>;
  /** Stores an account's settings; `audit`'s entry (given the settings stored before, if any) is recorded in the same transaction. */
  put(accountId: number, settings: LoginSettings, audit?: (before: LoginSettings | undefined) => NewAuditEntry): Promise<LoginSettings>;
  /** The log retention every account with stored settings has chosen. */
  retentions(): Promise<Array<{ accountId: number; days: number }>>;
  /** Where the account's users land after signing in and out; undefined until set. */
  redirects(accountId: number): Promise<SignInRedirects | undefined>;
  /** Replaces them whole (one upsert); `audit`'s entry (given the rules before, if any) in the same transaction. */
  putRedirects(accountId: number, r: SignInRedirects, at: string, audit?: (before: SignInRedirects | undefined) => NewAuditEntry): Promise<void>;
}
