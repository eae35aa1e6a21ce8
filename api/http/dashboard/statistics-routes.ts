// The mailer namespace's statistics routes: totals of a period with the queue depth, a time series by hour or
// day (of one domain or all), and the last 12 months; all read from the core's counters (core.statistics).
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { INTERVALS } from '../../../shared/core/statistics.js';
import { dashboardStatsView, metricsView, monthlyView, periodArgs } from './statistics-views.js';

type Route = DashboardRoute<DashboardCaller>;

const NS = 'tern/v2';

const dashboard: Route = {
  namespace: NS,
  path: '/stats/dashboard',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary:
        "Recipients of a period's messages (default the last 30 days), by status: accepted, sent, bounced, complained, suppressed, failed, rates; the team's queue depth now",
      args: Type.Object(periodArgs),
      async handle({ ctx, user, params }) {
        return { body: dashboardStatsView(valueOf(await ctx.core.statistics.dashboard(signedIn(user).acting, params))) };
      },
    }),
  ],
};

const metrics: Route = {
  namespace: NS,
  path: '/stats/metrics',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'The same figures per UTC hour or day of a period (default the last 24 hours by hour, 30 days by day), zeros included',
      args: Type.Object({
        ...periodArgs,
        interval: oneOf(INTERVALS, { description: 'The length of each point.', default: 'day' }),
        domain: Type.Optional(Type.String({ description: 'Only this domain of the team, by id or name.', minLength: 1, maxLength: 253 })),
      }),
      async handle({ ctx, user, params }) {
        return { body: metricsView(valueOf(await ctx.core.statistics.metrics(signedIn(user).acting, params))) };
      },
    }),
  ],
};

const monthly: Route = {
  namespace: NS,
  path: '/stats/monthly',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'The same figures for each of the last 12 calendar months (UTC), the current one last',
      args: Type.Object({}),
      async handle({ ctx, user }) {
        return { body: monthlyView(await ctx.core.statistics.monthly(signedIn(user).acting)) };
      },
    }),
  ],
};

export const statisticsRoutes: readonly Route[] = [dashboard, metrics, monthly];
