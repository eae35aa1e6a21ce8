// The platform statistics in SQLite: the per-day counters of recipients by status (migration 31), the queue-depth counters of
// migration 11, and counts of the teams table (10,000 rows at most in practice, read in one pass).
import type { Sql } from './sql.js';
import type { DayCount, PlatformStatisticsRepository, TeamCounts } from '../platform-statistics.js';
import { decodeDay, decodeDepth, decodeTeamCounts } from '../platform-statistics-row.js';

export class PlatformStatisticsStore implements PlatformStatisticsRepository {
  constructor(private readonly sql: Sql) {}

  async messagesByDay(fromDay: string, toDay: string): Promise<DayCount[]> {
    const rows = await this.sql.all('SELECT day, status, n FROM platform_recipient_counts WHERE day BETWEEN ? AND ? AND n > 0 ORDER BY day, status', [fromDay, toDay]);
    return rows.map(decodeDay);
  }

  async teamCounts(): Promise<TeamCounts> {
    const row = await this.sql.get(
      `SELECT COALESCE(SUM(parent_id IS NULL), 0) AS accounts, COALESCE(SUM(parent_id IS NOT NULL), 0) AS teams,
         COALESCE(SUM(parent_id IS NULL AND status = 'suspended'), 0) AS suspended_accounts,
         COALESCE(SUM(parent_id IS NOT NULL AND status = 'suspended'), 0) AS suspended_teams
       FROM teams WHERE deleted_at IS NULL`,
    );
    return decodeTeamCounts(row!);
  }

  async queueDepth(): Promise<number> {
    return decodeDepth((await this.sql.get('SELECT COALESCE(SUM(n), 0) AS n FROM queue_depths'))!);
  }
}
