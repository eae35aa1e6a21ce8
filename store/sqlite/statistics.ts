// The statistics in SQLite: message counts read from the counters the triggers keep (message_counts by day,
// message_counts_hourly by hour) and, for the parts of an hour a period's bounds cut into, from the index on
// (team_id, created_at); the queue depth from its counter (queue_depths).
import { Type } from '@sinclair/typebox';
import type { Sql, SqlValue } from './sql.js';
import { countOf, Int, OneOf, rowDecoder, Text } from './decode.js';
import { countSpans, type Span } from './count-spans.js';
import { MESSAGE_STATUSES } from '../../domain/queue-state.js';
import type { CountPeriod, DomainCount, StatisticsRepository, StatusCount, TimeCount, TimeCountQuery, TimeGrain } from '../statistics.js';

type Grouping = TimeGrain | 'domain' | 'total';

const decodeCount = rowDecoder('message count', Type.Object({ k: Text, status: OneOf(MESSAGE_STATUSES), n: Int }), (r) => r);

/** How many leading characters of created_at (and of the counters' hour and day keys) name a group. */
const PREFIX: Readonly<Record<TimeGrain, number>> = { hour: 13, day: 10, month: 7 };
/** What completes a group's key into the ISO 8601 instant it starts at. */
const START_SUFFIX: Readonly<Record<TimeGrain, string>> = { hour: ':00:00.000Z', day: 'T00:00:00.000Z', month: '-01T00:00:00.000Z' };

const TABLES = {
  messages: { table: 'messages', time: 'created_at', domain: "COALESCE(domain_id, '')", n: 'COUNT(*)' },
  hours: { table: 'message_counts_hourly', time: 'hour', domain: 'domain_key', n: 'SUM(n)' },
  days: { table: 'message_counts', time: 'day', domain: 'domain_key', n: 'SUM(n)' },
} as const;

const EVERY_STATUS = MESSAGE_STATUSES.map((status) => `'${status}'`).join(', ');

/** The group key of a row of `source`. */
function keyOf(source: Span['source'], by: Grouping): string {
  const t = TABLES[source];
  if (by === 'total') return "''";
  if (by === 'domain') return t.domain;
  return `substr(${t.time}, 1, ${PREFIX[by]})`;
}

/** One span's counts by group and status. */
function spanCount(span: Span, teamId: number, by: Grouping, domainId: string | undefined): { sql: string; params: SqlValue[] } {
  const t = TABLES[span.source];
  const byDomain = domainId === undefined ? '' : ` AND ${span.source === 'messages' ? 'domain_id' : 'domain_key'} = ?`;
  // Every status named, so that the index on (team_id, status, created_at) answers an edge's scan alone,
  // without reading each message's row (its domain is not needed then).
  const covered = span.source === 'messages' && domainId === undefined && by !== 'domain' ? ` AND status IN (${EVERY_STATUS})` : '';
  return {
    sql: `SELECT ${keyOf(span.source, by)} AS k, status, ${t.n} AS n FROM ${t.table}
      WHERE team_id = ? AND ${t.time} >= ? AND ${t.time} <= ?${byDomain}${covered} GROUP BY k, status`,
    params: [teamId, span.from, span.to, ...(domainId === undefined ? [] : [domainId])],
  };
}

export class StatisticsStore implements StatisticsRepository {
  constructor(private readonly sql: Sql) {}

  /** Counts by group and status over the period; day counters are read unless grouped by hour. */
  private async count(teamId: number, period: CountPeriod, by: Grouping, domainId?: string) {
    const parts = countSpans(period.from, period.to, by !== 'hour').map((span) => spanCount(span, teamId, by, domainId));
    if (!parts.length) return [];
    const rows = await this.sql.all(
      `SELECT k, status, SUM(n) AS n FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) GROUP BY k, status HAVING SUM(n) > 0`,
      parts.flatMap((p) => p.params),
    );
    return rows.map(decodeCount);
  }

  async countByStatus(teamId: number, period: CountPeriod): Promise<StatusCount[]> {
    return (await this.count(teamId, period, 'total')).map(({ status, n }) => ({ status, n }));
  }

  async countOverTime(teamId: number, q: TimeCountQuery): Promise<TimeCount[]> {
    const rows = await this.count(teamId, q, q.grain, q.domainId);
    return rows.map(({ k, status, n }) => ({ start: `${k}${START_SUFFIX[q.grain]}`, status, n }));
  }

  async countByDomain(teamId: number, period: CountPeriod): Promise<DomainCount[]> {
    return (await this.count(teamId, period, 'domain')).map(({ k, status, n }) => ({ domainId: k === '' ? null : k, status, n }));
  }

  async queueDepth(teamId: number): Promise<number> {
    // Kept by the triggers on recipients (migration 11).
    const row = await this.sql.get('SELECT COALESCE((SELECT n FROM queue_depths WHERE team_id = ?), 0) AS n', [teamId]);
    return countOf(row!);
  }
}
