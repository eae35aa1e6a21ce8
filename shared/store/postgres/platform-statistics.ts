// The platform statistics on PostgreSQL: the per-day counters of recipients by status (platform_recipient_counts,
// moved by figure-counters.ts), the queue-depth counters, and counts of the teams table (10,000 rows at most in
// practice, read in one pass).
import type { PgSql } from './sql.js';
import type { DayCount, PlatformStatisticsRepository, TeamCounts } from '../platform-statistics.js';
import { decodeDay, decodeDepth, decodeTeamCounts } from '../platform-statistics-row.js';

export class PgPlatformStatisticsStore implements PlatformStatisticsRepository {
  constructor(private readonly sql: PgSql) {}

  async messagesByDay(fromDay: string, toDay: string): Promise<DayCount[]> {
    const rows = await this.sql.all('SELECT day, status, n FROM platform_recipient_counts WHERE day BETWEEN $1 AND $2 AND n > 0 ORDER BY day, status', [fromDay, toDay]);
    return rows.map(decodeDay);
  }

  async teamCounts(): Promise<TeamCounts> {
    const row = await this.sql.get(
      `SELECT COUNT(*) FILTER (WHERE parent_id IS NULL) AS accounts, COUNT(*) FILTER (WHERE parent_id IS NOT NULL) AS teams,
         COUNT(*) FILTER (WHERE parent_id IS NULL AND status = 'suspended') AS suspended_accounts,
         COUNT(*) FILTER (WHERE parent_id IS NOT NULL AND status = 'suspended') AS suspended_teams
       FROM teams WHERE deleted_at IS NULL`,
    );
    return decodeTeamCounts(row!);
  }

  async queueDepth(): Promise<number> {
    return decodeDepth((await this.sql.get('SELECT COALESCE(SUM(n), 0)::bigint AS n FROM queue_depths'))!);
  }
}
