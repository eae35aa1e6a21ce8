// The platform statistics repository: figures across every team, read from counters kept on write
// (platform_recipient_counts, queue_depths, the teams table), never a scan of the log.
import type { StatusCount } from './statistics.js';

export interface DayCount extends StatusCount {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

export interface TeamCounts {
  accounts: number;
  teams: number;
  suspendedAccounts: number;
  suspendedTeams: number;
}

export interface PlatformStatisticsRepository {
  /** The recipients of every team's messages recorded on the UTC days from `fromDay` to `toDay` (inclusive), by day and status. */
  messagesByDay(fromDay: string, toDay: string): Promise<DayCount[]>;
  /** Live accounts and child teams, and how many of each are suspended. */
  teamCounts(): Promise<TeamCounts>;
  /** Recipients in flight (queued, sending or deferred) across every team. */
  queueDepth(): Promise<number>;
}
