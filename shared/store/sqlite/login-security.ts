// The auth log and the accounts' login settings in SQLite.
import { Type } from '@sinclair/typebox';
import type { Sql } from './sql.js';
import { countOf, Int, Nullable, rowDecoder } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { AuthLogEntry, AuthStats, LoginSettings } from '../../domain/login-security.js';
import type { AuthLogRepository, LoginSettingsRepository, NewAuthAttempt } from '../login-security.js';
import { decodeEntry, decodeSettings } from '../login-security-row.js';

const decodeStats = rowDecoder('auth stats', Type.Object({ attempts: Int, failures: Nullable(Int), lockouts: Nullable(Int) }), (r): AuthStats => ({
  attempts: r.attempts,
  failures: r.failures ?? 0,
  lockouts: r.lockouts ?? 0,
}));

export class AuthLogStore implements AuthLogRepository {
  constructor(private readonly sql: Sql) {}

  async record(a: NewAuthAttempt): Promise<AuthLogEntry> {
    const [row] = await this.sql.returning(
      'INSERT INTO auth_log (account_id, user_id, email, address, user_agent, result, at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [a.accountId, a.userId, a.email, a.address, a.userAgent, a.result, a.at],
    );
    return decodeEntry(row!);
  }

  async list(accountId: number, page: PageRequest): Promise<PageOf<AuthLogEntry>> {
    const rows = await this.sql.all('SELECT * FROM auth_log WHERE account_id = ? ORDER BY id DESC LIMIT ? OFFSET ?', [accountId, ...limitOffset(page)]);
    const count = await this.sql.get('SELECT COUNT(*) AS n FROM auth_log WHERE account_id = ?', [accountId]);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  async remove(accountId: number, id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = ? AND id = ?', [accountId, id])).changes === 1;
  }

  async truncate(accountId: number): Promise<number> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = ?', [accountId])).changes;
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
    const row = await this.sql.get('SELECT * FROM login_settings WHERE account_id = ?', [accountId]);
    return row && decodeSettings(row);
  }

  async put(accountId: number, s: LoginSettings): Promise<LoginSettings> {
    const [row] = await this.sql.returning(
      `INSERT INTO login_settings (account_id, failures_per_email, window_minutes, session_idle_minutes, session_absolute_hours, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET failures_per_email = excluded.failures_per_email, window_minutes = excluded.window_minutes,
         session_idle_minutes = excluded.session_idle_minutes, session_absolute_hours = excluded.session_absolute_hours, updated_at = excluded.updated_at
       RETURNING *`,
      [accountId, s.failuresPerEmail, s.windowMinutes, s.sessionIdleMinutes, s.sessionAbsoluteHours, nowIso()],
    );
    return decodeSettings(row!);
  }
}
