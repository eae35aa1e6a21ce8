// The auth log and the accounts' login settings in PostgreSQL. The login throttle itself is not here: an attempt
// takes its place in Redis windows before its password is checked (core/identity/login.ts); this log records
// what each attempt came to.
import { Type } from '@sinclair/typebox';
import { ParamList, type PgSql } from './sql.js';
import { countOf, Int, rowDecoder } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { AuthLogEntry, AuthStats, LoginSettings } from '../../domain/login-security.js';
import type { SignInRedirects } from '../../domain/sign-in-redirects.js';
import type { AuthLogFilter, AuthLogRepository, AuthLogScope, LoginSettingsRepository, NewAuthAttempt } from '../login-security.js';
import { decodeEntry, decodeRedirects, decodeRetentions, decodeSettings, SETTINGS_COLUMNS, settingsValues } from '../login-security-row.js';
import { likeContains } from '../like.js';
import { PgAuditLogStore } from './audit-log.js';
import type { NewAuditEntry } from '../audit-log.js';

const decodeStats = rowDecoder('auth stats', Type.Object({ attempts: Int, failures: Int, lockouts: Int }), (r): AuthStats => ({
  attempts: r.attempts,
  failures: r.failures,
  lockouts: r.lockouts,
}));

const ENTRY_COLUMNS = 'id, account_id, user_id, email, address, user_agent, result, method, at';

export class PgAuthLogStore implements AuthLogRepository {
  constructor(private readonly sql: PgSql) {}

  async record(a: NewAuthAttempt): Promise<AuthLogEntry> {
    const row = await this.sql.get(
      `INSERT INTO auth_log (account_id, user_id, email, address, user_agent, result, method, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ENTRY_COLUMNS}`,
      [a.accountId, a.userId, a.email, a.address, a.userAgent, a.result, a.method ?? 'password', a.at],
    );
    return decodeEntry(row!);
  }

  async list(accountId: number, page: PageRequest, filter: AuthLogFilter = {}): Promise<PageOf<AuthLogEntry>> {
    const params = new ParamList();
    const where = filtered(accountId, filter, params);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM auth_log WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(
      `SELECT ${ENTRY_COLUMNS} FROM auth_log WHERE ${where} ORDER BY id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  async get(accountId: number, id: number): Promise<AuthLogEntry | undefined> {
    const row = await this.sql.get(`SELECT ${ENTRY_COLUMNS} FROM auth_log WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return row && decodeEntry(row);
  }

  async remove(accountId: number, id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = $1 AND id = $2', [accountId, id])).changes === 1;
  }

  async removeBefore(before: string, scope: AuthLogScope): Promise<number> {
    if ('accounts' in scope) {
      if (!scope.accounts.length) return 0;
      return (await this.sql.run('DELETE FROM auth_log WHERE at < $1 AND account_id = ANY($2)', [before, [...scope.accounts]])).changes;
    }
    const sql = 'DELETE FROM auth_log WHERE at < $1 AND (account_id IS NULL OR NOT (account_id = ANY($2)))';
    return (await this.sql.run(sql, [before, [...scope.exceptAccounts]])).changes;
  }

  async truncate(accountId: number, audit?: (removed: number) => NewAuditEntry): Promise<number> {
    return this.sql.tx(async (q) => {
      const removed = (await q.run('DELETE FROM auth_log WHERE account_id = $1', [accountId])).changes;
      if (audit) await PgAuditLogStore.insert(q, audit(removed));
      return removed;
    });
  }

  /** COUNT … FILTER where SQLite sums booleans: a count is never null, so no row's absence reads as null here. */
  async stats(accountId: number, since: string): Promise<AuthStats> {
    const row = await this.sql.get(
      `SELECT COUNT(*) AS attempts, COUNT(*) FILTER (WHERE result = 'failure') AS failures, COUNT(*) FILTER (WHERE result = 'throttled') AS lockouts
       FROM auth_log WHERE account_id = $1 AND at >= $2`,
      [accountId, since],
    );
    return decodeStats(row!);
  }
}

export class PgLoginSettingsStore implements LoginSettingsRepository {
  constructor(private readonly sql: PgSql) {}

  async get(accountId: number): Promise<LoginSettings | undefined> {
    const row = await this.sql.get(`SELECT ${SETTINGS_COLUMNS} FROM login_settings WHERE account_id = $1`, [accountId]);
    return row && decodeSettings(row);
  }

  /** One upsert: two puts at once both land (the later replaces the earlier whole), neither fails on the key. */
  async put(accountId: number, s: LoginSettings): Promise<LoginSettings> {
    const columns = SETTINGS_COLUMNS.split(', ');
    const values = [accountId, ...settingsValues(s), nowIso()];
    const row = await this.sql.get(
      `INSERT INTO login_settings (account_id, ${SETTINGS_COLUMNS}, updated_at) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (account_id) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = excluded.updated_at
       RETURNING ${SETTINGS_COLUMNS}`,
      values,
    );
    return decodeSettings(row!);
  }

  async retentions(): Promise<Array<{ accountId: number; days: number }>> {
    return decodeRetentions(await this.sql.all('SELECT account_id, log_retention_days FROM login_settings ORDER BY account_id'));
  }
  async redirects(accountId: number): Promise<SignInRedirects | undefined> {
    const row = await this.sql.get('SELECT rules FROM sign_in_redirects WHERE account_id = $1', [accountId]);
    return row && decodeRedirects(row);
  }

  async putRedirects(accountId: number, r: SignInRedirects, at: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO sign_in_redirects (account_id, rules, updated_at) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at',
      [accountId, JSON.stringify(r), at],
    );
  }
}

/** An account's entries, narrowed by result and by a search of the email or address (ILIKE: any case, as SQLite's LIKE). */
function filtered(accountId: number, f: AuthLogFilter, params: ParamList): string {
  const terms = [`account_id = ${params.add(accountId)}`];
  if (f.results?.length) terms.push(`result = ANY(${params.add([...f.results])})`);
  if (f.search) {
    const pattern = params.add(likeContains(f.search));
    terms.push(`(email ILIKE ${pattern} ESCAPE '\\' OR address ILIKE ${pattern} ESCAPE '\\')`);
  }
  return terms.join(' AND ');
}
