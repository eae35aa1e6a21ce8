// The statistics repository: how many recipients of the messages a team recorded over a period are in each
// status (one definition for every figure: docs/decisions.md, "Bounces counted per recipient (issue 22, item 6)"),
// grouped by hour, day, month or domain, read from counters kept on write (never a scan of the log per request);
// and the team's queue depth.
import type { MessageStatus } from '../domain/queue-state.js';

/** Inclusive bounds of created_at, as ISO 8601 UTC with milliseconds (what toISOString() gives). */
export interface CountPeriod {
  from: string;
  to: string;
}

export type TimeGrain = 'hour' | 'day' | 'month';

export interface TimeCountQuery extends CountPeriod {
  grain: TimeGrain;
  /** Only the messages of this domain. */
  domainId?: string;
}

/** A number of recipients in one status in one group; groups and statuses with no recipient may be absent. */
export interface StatusCount {
  status: MessageStatus;
  n: number;
}

export interface TimeCount extends StatusCount {
  /** The start of the UTC hour, day or month, as ISO 8601 with milliseconds. */
  start: string;
}

export interface DomainCount extends StatusCount {
  /** null for messages recorded without a sending domain. */
  domainId: string | null;
}

export interface StatisticsRepository {
  /** The recipients of a team's messages recorded within the period, by status. */
  countByStatus(teamId: number, period: CountPeriod): Promise<StatusCount[]>;
  /** The recipients of a team's messages recorded within the period, by status and by the UTC hour, day or month the message was recorded in. */
  countOverTime(teamId: number, query: TimeCountQuery): Promise<TimeCount[]>;
  /** The recipients of a team's messages recorded within the period, by status and sending domain. */
  countByDomain(teamId: number, period: CountPeriod): Promise<DomainCount[]>;
  /** The team's recipients still in flight (queued, sending or deferred). */
  queueDepth(teamId: number): Promise<number>;
}
