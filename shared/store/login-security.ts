// The login-security repository: the auth log (every login attempt) and each account's login settings.
import type { AuthLogEntry, AuthStats, LoginSettings } from '../domain/login-security.js';
import type { PageOf, PageRequest } from './paging.js';

export type NewAuthAttempt = Omit<AuthLogEntry, 'id'>;

export interface AuthLogRepository {
  record(a: NewAuthAttempt): Promise<AuthLogEntry>;
  /** An account's entries, newest first. */
  list(accountId: number, page: PageRequest): Promise<PageOf<AuthLogEntry>>;
  remove(accountId: number, id: number): Promise<boolean>;
  /** Removes every entry of an account; how many. */
  truncate(accountId: number): Promise<number>;
  /** An account's attempts at or after `since` (ISO), by result. */
  stats(accountId: number, since: string): Promise<AuthStats>;
}

export interface LoginSettingsRepository {
  get(accountId: number): Promise<LoginSettings | undefined>;
  put(accountId: number, settings: LoginSettings): Promise<LoginSettings>;
}
