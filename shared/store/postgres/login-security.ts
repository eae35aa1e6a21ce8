// The auth log and the accounts' login settings in PostgreSQL. The login throttle itself is not here: an attempt
// takes its place in Redis windows before its password is checked (core/identity/login.ts); this log records
// what each attempt came to.
import { Type } from '@sinclair/typebox';
import type { PgSql } from './sql.js';
import { countOf, Int, rowDecoder } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { AuthLogEntry, AuthStats, LoginSettings } from '../../domain/login-security.js';
import type { AuthLogRepository, LoginSettingsRepository, NewAuthAttempt } from '../login-security.js';
import { decodeEntry, decodeSettings } from '../login-security-row.js';

const decodeStats = rowDecoder('auth stats', Type.Object({ attempts: Int, failures: Int, lockouts: Int }), (r): AuthStats => ({
  attempts: r.attempts,
  failures: r.failures,
  lockouts: r.lockouts,
}));

const ENTRY_COLUMNS = 'id, account_id, user_id, email, address, user_agent, result, at';

export class PgAuthLogStore implements AuthLogRepository {
  constructor(private readonly sql: PgSql) {}

  async record(a: NewAuthAttempt): Promise<AuthLogEntry> {
    const row = await this.sql.get(
      `INSERT INTO auth_log (account_id, user_id, email, address, user_agent, result, at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ENTRY_COLUMNS}`,
      [a.accountId, a.userId, a.email, a.address, a.userAgent, a.result, a.at],
    );
    return decodeEntry(row!);
  }

  async list(accountId: number, page: PageRequest): Promise<PageOf<AuthLogEntry>> {
    const rows = await this.sql.all(`SELECT ${ENTRY_COLUMNS} FROM auth_log WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`, [accountId, ...limitOffset(page)]);
    const count = await this.sql.get('SELECT COUNT(*) AS n FROM auth_log WHERE account_id = $1', [accountId]);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  async remove(accountId: number, id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = $1 AND id = $2', [accountId, id])).changes === 1;
  }

  async truncate(accountId: number): Promise<number> {
    return (await this.sql.run('DELETE FROM auth_log WHERE account_id = $1', [accountId])).changes;
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

const SETTINGS_COLUMNS = 'failures_per_email, window_minutes, session_idle_minutes, session_absolute_hours';

export class PgLoginSettingsStore implements LoginSettingsRepository {
  constructor(private readonly sql: PgSql) {}

  async get(accountId: number): Promise<LoginSettings | undefined> {
    const row = await this.sql.get(`SELECT ${SETTINGS_COLUMNS} FROM login_settings WHERE account_id = $1`, [accountId]);
    return row && decodeSettings(row);
  }

  /** One upsert: two puts at once both land (the later replaces the earlier whole), neither fails on the key. */
  async put(accountId: number, s: LoginSettings): Promise<LoginSettings> {
    const row = await this.sql.get(
      `INSERT INTO login_settings (account_id, failures_per_email, window_minutes, session_idle_minutes, session_absolute_hours, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id) DO UPDATE SET failures_per_email = excluded.failures_per_email, window_minutes = excluded.window_minutes,
         session_idle_minutes = excluded.session_idle_minutes, session_absolute_hours = excluded.session_absolute_hours, updated_at = excluded.updated_at
       RETURNING ${SETTINGS_COLUMNS}`,
      [accountId, s.failuresPerEmail, s.windowMinutes, s.sessionIdleMinutes, s.sessionAbsoluteHours, nowIso()],
    );
    return decodeSettings(row!);
  }
}
