// The dashboard's statistics of a team: totals over a period, a time series by hour or day, the last 12 months,
// and figures per sending domain. Every figure is a count of the recipients of the team's messages, each by its
// status (pending while in the queue; docs/decisions.md, "Bounces counted per recipient (issue 22, item 6)"), by
// the time their message was recorded, read from counters kept on write, never a scan of the log.
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import type { StatusCount } from '../store/statistics.js';
import type { DomainManagement } from './domains.js';
import { dateBound } from './message-log.js';
import { rate } from './team-summary.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export const INTERVALS = ['hour', 'day'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface StatisticsDeps {
  config: Config;
  store: Store;
}

/** A period as asked for: ISO 8601 dates or date-times; a date alone means its first (from) or last (to) millisecond, UTC. */
export interface PeriodRequest {
  from?: string;
  to?: string;
}

export interface MetricsRequest extends PeriodRequest {
  /** 'hour' or 'day' (anything else is refused). */
  interval: string;
  /** A domain of the team, by id or name. */
  domain?: string;
}

/** The period counted: inclusive bounds, ISO 8601 UTC with milliseconds. */
export interface Period {
  from: string;
  to: string;
}

/** Recipients of the messages recorded, by status; rates over those with a delivery outcome. */
export interface MessageFigures {
  /** Every recipient of the messages recorded: the sum of the six statuses below. */
  accepted: number;
  pending: number;
  sent: number;
  bounced: number;
  complained: number;
  suppressed: number;
  failed: number;
  /** bounced / (sent + bounced + complained), four decimals; 0 when that is 0. */
  bounceRate: number;
  /** complained / (sent + bounced + complained), four decimals; 0 when that is 0. */
  complaintRate: number;
}

export interface DashboardStats extends MessageFigures {
  period: Period;
  /** The team's recipients still queued, sending or deferred, now (not bound to the period). */
  queueDepth: number;
}

export interface MetricsPoint extends MessageFigures {
  /** The start of the UTC hour or day; the first and last points count only what lies within the period. */
  start: string;
}

export interface MetricsSeries {
  period: Period;
  interval: Interval;
  domainId: string | null;
  /** Every hour or day the period touches, oldest first, zeros included. */
  points: MetricsPoint[];
}

export interface MonthFigures extends MessageFigures {
  /** "YYYY-MM", UTC. */
  month: string;
}

export interface MonthlyStats {
  period: Period;
  /** The last 12 calendar months (UTC), the current one last, zeros included. */
  months: MonthFigures[];
}

export interface DomainFigures extends MessageFigures {
  domainId: string;
  name: string;
}

export interface DomainSendingStats {
  period: Period;
  /** Every live domain of the team, oldest first, zeros included. */
  domains: DomainFigures[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNIT: Readonly<Record<Interval, number>> = { hour: HOUR, day: DAY };
const iso = (ms: number) => new Date(ms).toISOString();

/** The figures of a set of status counts (each status may appear several times, or not at all). */
export function figuresOf(counts: Iterable<Pick<StatusCount, 'status' | 'n'>>): MessageFigures {
  const by = { pending: 0, sent: 0, bounced: 0, complained: 0, suppressed: 0, failed: 0 };
  for (const { status, n } of counts) by[status] += n;
  const outcomes = by.sent + by.bounced + by.complained;
  return {
    accepted: by.pending + by.sent + by.bounced + by.complained + by.suppressed + by.failed,
    ...by,
    bounceRate: rate(by.bounced, outcomes),
    complaintRate: rate(by.complained, outcomes),
  };
}

/** Groups counts by a key, in a map that keeps the keys given first (with no count: zeros). */
function countsBy<T extends StatusCount>(keys: readonly string[], counts: readonly T[], keyOf: (c: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const c of counts) groups.get(keyOf(c) ?? '')?.push(c);
  return groups;
}

export class Statistics {
  constructor(
    private readonly d: StatisticsDeps,
    private readonly domains: DomainManagement,
    private readonly now: () => number = Date.now,
  ) {}

  /** Totals of the period (default: the last statistics.defaultDays days) and the team's queue depth. */
  async dashboard(team: Team, req: PeriodRequest): Promise<Managed<DashboardStats>> {
    const period = this.period(req, this.d.config.statistics.defaultDays, this.d.config.statistics.maxDays);
    if (!period.ok) return period;
    const [counts, queueDepth] = await Promise.all([this.d.store.statistics.countByStatus(team.id, period.value), this.d.store.statistics.queueDepth(team.id)]);
    return done({ period: period.value, ...figuresOf(counts), queueDepth });
  }

  /** A point per hour or day of the period (hours: at most statistics.maxHourlyDays days), of one domain or all. */
  async metrics(team: Team, req: MetricsRequest): Promise<Managed<MetricsSeries>> {
    const interval = INTERVALS.find((i) => i === req.interval);
    if (!interval) return refuse({ kind: 'invalid_field', field: 'interval', message: `interval must be one of: ${INTERVALS.join(', ')}` });
    const s = this.d.config.statistics;
    const period = interval === 'hour' ? this.period(req, s.defaultHourlyDays, s.maxHourlyDays) : this.period(req, s.defaultDays, s.maxDays);
    if (!period.ok) return period;
    const domainId = req.domain ? await this.domains.resolveFilter(team, req.domain) : null;
    if (req.domain && !domainId) return notFound('domain', 'Domain not found', 'domain');
    const counts = await this.d.store.statistics.countOverTime(team.id, { ...period.value, grain: interval, ...(domainId ? { domainId } : {}) });
    const starts = bucketStarts(period.value, UNIT[interval]);
    const points = [...countsBy(starts, counts, (c) => c.start)].map(([start, cs]) => ({ start, ...figuresOf(cs) }));
    return done({ period: period.value, interval, domainId, points });
  }

  /** The last 12 calendar months (UTC), the current one included. */
  async monthly(team: Team): Promise<MonthlyStats> {
    const now = new Date(this.now());
    const [y, m] = [now.getUTCFullYear(), now.getUTCMonth()];
    const monthStarts = Array.from({ length: 12 }, (_, i) => iso(Date.UTC(y, m - 11 + i, 1)));
    const period = { from: monthStarts[0]!, to: iso(Date.UTC(y, m + 1, 1) - 1) };
    const counts = await this.d.store.statistics.countOverTime(team.id, { ...period, grain: 'month' });
    const months = [...countsBy(monthStarts, counts, (c) => c.start)].map(([start, cs]) => ({ month: start.slice(0, 7), ...figuresOf(cs) }));
    return { period, months };
  }

  /** Figures of each live domain of the team over the period (default: the last statistics.defaultDays days). */
  async domainSendingStats(team: Team, req: PeriodRequest): Promise<Managed<DomainSendingStats>> {
    const period = this.period(req, this.d.config.statistics.defaultDays, this.d.config.statistics.maxDays);
    if (!period.ok) return period;
    const [domains, counts] = await Promise.all([this.allDomains(team), this.d.store.statistics.countByDomain(team.id, period.value)]);
    const groups = countsBy(
      domains.map((d) => d.id),
      counts,
      (c) => c.domainId,
    );
    return done({ period: period.value, domains: domains.map((d) => ({ domainId: d.id, name: d.name, ...figuresOf(groups.get(d.id) ?? []) })) });
  }

  private async allDomains(team: Team): Promise<Domain[]> {
    const all: Domain[] = [];
    const perPage = 100;
    for (let page = 1; ; page++) {
      const { rows, total } = await this.d.store.domains.list(team.id, { page, perPage });
      all.push(...rows);
      if (!rows.length || all.length >= total) return all;
    }
  }

  /** The period asked for, checked: dates, from not after to, at most `maxDays` long; missing bounds default to the last `defaultDays` days. */
  private period(req: PeriodRequest, defaultDays: number, maxDays: number): Managed<Period> {
    const given = { from: dateBound(req.from, false), to: dateBound(req.to, true) };
    for (const field of ['from', 'to'] as const) {
      if (given[field] === null) return refuse({ kind: 'invalid_field', field, message: `${field} must be an ISO 8601 date or date-time` });
    }
    const to = given.to ?? iso(this.now());
    const from = given.from ?? iso(Date.parse(to) - defaultDays * DAY + 1);
    if (from > to) return refuse({ kind: 'invalid_field', field: 'from', message: 'from must not be after to' });
    if (Date.parse(to) - Date.parse(from) + 1 > maxDays * DAY) {
      return refuse({ kind: 'invalid_field', field: 'from', message: `the period must not be longer than ${maxDays} days` });
    }
    return done({ from, to });
  }
}

/** The start of every interval the period touches, oldest first. */
function bucketStarts(period: Period, unit: number): string[] {
  const starts: string[] = [];
  for (let t = Math.floor(Date.parse(period.from) / unit) * unit; t <= Date.parse(period.to); t += unit) starts.push(iso(t));
  return starts;
}
