// The auth log and the accounts' login settings in SQLite.
import { Type } from '@sinclair/typebox';
import type { Sql } from './sql.js';
import { countOf, Int, Nullable, rowDecoder } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { AuthLogEntry, AuthStats, LoginSettings } from '../../domain/login-security.js';
import type { SignInRedirects } from '../../domain/sign-in-redirects.js';
import type { AuthLogFilter, AuthLogRepository, AuthLogScope, LoginSettingsRepository, NewAuthAttempt } from '../login-security.js';
import { decodeEntry, decodeRedirects, decodeRetentions, decodeSettings, SETTINGS_COLUMNS, settingsValues } from '../login-security-row.js';
import { likeContains } from '../like.js';
import { AuditLogStore } from './audit-log.js';
import type { NewAuditEntry } from '../audit-log.js';

const decodeStats = rowDecoder('auth stats', Type.Object({ attempts: Int, failures: Nullable(Int), lockouts: Nullable(Int) }), (r): AuthStats => ({
  attempts: r.attempts,
  failures: r.failures ?? 0,
  lockouts: r.lockouts ?? 0,
}));

export class AuthLogStore implements AuthLogRepository {
  constructor(private readonly sql: Sql) {}

  async record(a: NewAuthAttempt): Promise<AuthLogEntry> {
    const [row] = await this.sql.returning(
      'INSERT INTO auth_log (account_id, user_id, email, address, user_agent, result, method, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [a.accountId, a.userId, a.email, a.address, a.userAgent, a.result, a.method ?? 'password', a.at],
    );
    return decodeEntry(row!);
  }

  async list(accountId: number, page: PageRequest, filter: AuthLogFilter = {}): Promise<PageOf<AuthLogEntry>> {
    const { where, params } = filtered(accountId, filter);
    const rows = await this.sql.all(`SELECT * FROM auth_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`, [...params, ...limitOffset(page)]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM auth_log WHERE ${where}`, params);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  async get(accountId: number, id: number): Promise<AuthLogEntry | undefined> {
    const row = await this.sql.get(`SELECT * FROM auth_log WHERE account_id = ? AND id = ?`, [accountId, id]);
    return row && decodeEntry(row);
  }

  async remove(accountId: number, id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = ? AND id = ?', [accountId, id])).changes === 1;
  }

  async removeBefore(before: string, scope: AuthLogScope): Promise<number> {
    const ids = 'accounts' in scope ? scope.accounts : scope.exceptAccounts;
    const marks = ids.map(() => '?').join(', ');
    const which = 'accounts' in scope ? `account_id IN (${marks})` : ids.length ? `(account_id IS NULL OR account_id NOT IN (${marks}))` : '1 = 1';
    if ('accounts' in scope && !ids.length) return 0;
    return (await this.sql.run(`DELETE FROM auth_log WHERE at < ? AND ${which}`, [before, ...ids])).changes;
  }

  async truncate(accountId: number, audit?: (removed: number) => NewAuditEntry): Promise<number> {
    return this.sql.tx(async (q) => {
      const removed = (await q.run('DELETE FROM auth_log WHERE account_id = ?', [accountId])).changes;
      if (audit) await AuditLogStore.insert(q, audit(removed));
      return removed;
    });
  }

  async stats(accountId: number, since: string): Promise<AuthStats> {
    const row = await this.sql.get(
      `SELECT COUNT(*) AS attempts, SUM(result = 'failure') AS failures, SUM(result = 'throttled') AS lockouts
       FROM auth_log WHERE account_id = ? AND at >= ?`,
      [accountId, since],
    );
    return decodeStats(row!);
  }
}

export class LoginSettingsStore implements LoginSettingsRepository {
  constructor(private readonly sql: Sql) {}

  async get(accountId: number): Promise<LoginSettings | undefined> {
    const row = await this.sql.get(`SELECT ${SETTINGS_COLUMNS} FROM login_settings WHERE account_id = ?`, [accountId]);
    return row && decodeSettings(row);
  }

  async put(accountId: number, s: LoginSettings): Promise<LoginSettings> {
    const columns = SETTINGS_COLUMNS.split(', ');
    const [row] = await this.sql.returning(
      `INSERT INTO login_settings (account_id, ${SETTINGS_COLUMNS}, updated_at) VALUES (?, ${columns.map(() => '?').join(', ')}, ?)
       ON CONFLICT (account_id) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = excluded.updated_at
       RETURNING ${SETTINGS_COLUMNS}`,
      [accountId, ...settingsValues(s), nowIso()],
    );
    return decodeSettings(row!);
  }

  async retentions(): Promise<Array<{ accountId: number; days: number }>> {
    return decodeRetentions(await this.sql.all('SELECT account_id, log_retention_days FROM login_settings ORDER BY account_id'));
  }
  async redirects(accountId: number): Promise<SignInRedirects | undefined> {
    const row = await this.sql.get('SELECT rules FROM sign_in_redirects WHERE account_id = ?', [accountId]);
    return row && decodeRedirects(row);
  }

  async putRedirects(accountId: number, r: SignInRedirects, at: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO sign_in_redirects (account_id, rules, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at',
      [accountId, JSON.stringify(r), at],
    );
  }
}

/** An account's entries, narrowed by result and by a search of the email or address (LIKE ignores ASCII case). */
function filtered(accountId: number, f: AuthLogFilter): { where: string; params: Array<string | number> } {
  const terms = ['account_id = ?'];
  const params: Array<string | number> = [accountId];
  if (f.results?.length) {
    terms.push(`result IN (${f.results.map(() => '?').join(', ')})`);
    params.push(...f.results);
  }
  if (f.search) {
    terms.push("(email LIKE ? ESCAPE '\\' OR address LIKE ? ESCAPE '\\')");
    params.push(likeContains(f.search), likeContains(f.search));
  }
  return { where: terms.join(' AND '), params };
}
