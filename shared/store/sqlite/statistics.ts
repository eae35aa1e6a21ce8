// The statistics in SQLite: recipients counted by status (one definition for every figure, docs/decisions.md,
// "Bounces counted per recipient (issue 22, item 6)"), read from the counters of migration 31, which the writes
// that create or move recipients keep (store/sqlite/figure-counters.ts; recipient_counts by day, recipient_counts_hourly by hour) and, for the parts of an hour a period's bounds cut
// into, from the team's messages on the index (team_id, created_at) and their recipients; the queue depth from
// its counter (queue_depths).
import { Type } from '@sinclair/typebox';
import type { Sql, SqlValue } from './sql.js';
import { countOf, Int, OneOf, rowDecoder, Text } from './decode.js';
import { countSpans, type Span } from '../count-spans.js';
import { MESSAGE_STATUSES } from '../../domain/queue-state.js';
import { FIGURE_TABLE } from '../../domain/figures.js';
import type { CountPeriod, DomainCount, StatisticsRepository, StatusCount, TimeCount, TimeCountQuery, TimeGrain } from '../statistics.js';

type Grouping = TimeGrain | 'domain' | 'total';

const decodeCount = rowDecoder('message count', Type.Object({ k: Text, status: OneOf(MESSAGE_STATUSES), n: Int }), (r) => r);

/** How many leading characters of created_at (and of the counters' hour and day keys) name a group. */
const PREFIX: Readonly<Record<TimeGrain, number>> = { hour: 13, day: 10, month: 7 };
/** What completes a group's key into the ISO 8601 instant it starts at. */
const START_SUFFIX: Readonly<Record<TimeGrain, string>> = { hour: ':00:00.000Z', day: 'T00:00:00.000Z', month: '-01T00:00:00.000Z' };

/** domain/figures.ts's table, as SQL: each state, with or without a complaint, to its figure status. */
function figureLookup(complained: boolean): string {
  const rows = FIGURE_TABLE.filter((f) => f.complained === complained);
  return `CASE r.state ${rows.map((f) => `WHEN '${f.state}' THEN '${f.status}'`).join(' ')} END`;
}

/**
 * A recipient's status as every figure counts it, for the parts of an hour no counter holds: the rule is
 * domain/figures.ts's (figureStatusOf), given here as its lookup table so that the read stays one statement.
 */
export const RECIPIENT_FIGURE = `CASE WHEN r.complained_at IS NOT NULL THEN ${figureLookup(true)} ELSE ${figureLookup(false)} END`;

const TABLES = {
  messages: {
    table: 'messages m JOIN recipients r ON r.message_id = m.id',
    team: 'm.team_id',
    time: 'm.created_at',
    domain: "COALESCE(m.domain_id, '')",
    domainId: 'm.domain_id',
    status: RECIPIENT_FIGURE,
    n: 'COUNT(*)',
  },
  hours: { table: 'recipient_counts_hourly', team: 'team_id', time: 'hour', domain: 'domain_key', domainId: 'domain_key', status: 'status', n: 'SUM(n)' },
  days: { table: 'recipient_counts', team: 'team_id', time: 'day', domain: 'domain_key', domainId: 'domain_key', status: 'status', n: 'SUM(n)' },
} as const;

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
  const byDomain = domainId === undefined ? '' : ` AND ${t.domainId} = ?`;
  // Grouped by position: in GROUP BY, \`status\` would name messages.status (a column wins over an alias).
  return {
    sql: `SELECT ${keyOf(span.source, by)} AS k, ${t.status} AS status, ${t.n} AS n FROM ${t.table}
      WHERE ${t.team} = ? AND ${t.time} >= ? AND ${t.time} <= ?${byDomain} GROUP BY 1, 2`,
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
