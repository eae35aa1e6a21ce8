// How the dashboard shows the core's statistics (core/statistics.ts): the figures in snake_case, the same for
// totals, points, months and domains, and the period args every statistics route takes.
import { Type } from '@sinclair/typebox';
import type { DashboardStats, DomainFigures, MessageFigures, MetricsSeries, MonthlyStats } from '../../../shared/core/statistics.js';

const bound = (which: 'first' | 'last') =>
  Type.Optional(Type.String({ description: `ISO 8601 date or date-time (UTC); a date alone means its ${which} millisecond.`, minLength: 1, maxLength: 40 }));

/** `from` and `to`: the period counted, inclusive; missing bounds default to the last days (docs/decisions.md). */
export const periodArgs = { from: bound('first'), to: bound('last') };

export const figuresView = (f: MessageFigures) => ({
  accepted: f.accepted,
  pending: f.pending,
  sent: f.sent,
  bounced: f.bounced,
  complained: f.complained,
  suppressed: f.suppressed,
  failed: f.failed,
  bounce_rate: f.bounceRate,
  complaint_rate: f.complaintRate,
});

export const dashboardStatsView = (s: DashboardStats) => ({ period: s.period, ...figuresView(s), queue_depth: s.queueDepth });

export const metricsView = (m: MetricsSeries) => ({
  period: m.period,
  interval: m.interval,
  domain_id: m.domainId,
  points: m.points.map((p) => ({ start: p.start, ...figuresView(p) })),
});

export const monthlyView = (m: MonthlyStats) => ({ period: m.period, months: m.months.map((x) => ({ month: x.month, ...figuresView(x) })) });

export const domainFiguresView = (d: DomainFigures) => ({ domain_id: d.domainId, domain_name: d.name, ...figuresView(d) });
