// Site health (WordPress's wp-site-health/v1, class-wp-rest-site-health-controller.php): one GET route per check,
// /tests/<test>, answering WordPress's result {label, status, badge {label, color}, description, actions, test},
// for platform operators (WordPress's view_site_health_checks). GET /tests (Tern's addition) answers every result at
// once, as the operator's page shows them. Translation only: core/site-health.ts runs the checks and words them.
import { Type } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { SITE_HEALTH_TESTS, type SiteHealthResult, type SiteHealthStatus, type SiteHealthTest } from '../../../shared/core/site-health.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'wp-site-health/v1';

/** WordPress's badge colours: blue is its default; the status deepens it. */
const BADGE_COLOR: Readonly<Record<SiteHealthStatus, string>> = { good: 'blue', recommended: 'orange', critical: 'red' };

/** A result in WordPress's shape: description and actions are HTML, every value in them escaped. */
const siteHealthView = (r: SiteHealthResult) => ({
  label: r.label,
  status: r.status,
  badge: { label: r.category, color: BADGE_COLOR[r.status] },
  description: r.description.map((p) => `<p>${escapeHtml(p)}</p>`).join(''),
  actions: r.actions.map((a) => `<p><a href="${escapeHtml(a.href)}">${escapeHtml(a.label)}</a></p>`).join(''),
  // WordPress names the test in its result with underscores (dotorg_communication) and in its route with hyphens.
  test: r.test.replace(/-/g, '_'),
});

const testRoute = (test: SiteHealthTest): Route => ({
  namespace: NAMESPACE,
  path: `/tests/${test}`,
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: `Site health: the ${test} check, run now (operators)`,
      args: Type.Object({}),
      handle: async ({ ctx, user }) => {
        operatorOf(user);
        return { body: siteHealthView(await ctx.core.siteHealth.run(test)) };
      },
    }),
  ],
});

export const siteHealthRoutes: readonly Route[] = [
  {
    namespace: NAMESPACE,
    path: '/tests',
    endpoints: [
      endpoint({
        methods: ['GET'],
        permission: 'operator',
        summary: 'Site health: every check, run now, in the order the operator’s page shows them (operators)',
        args: Type.Object({}),
        handle: async ({ ctx, user }) => {
          operatorOf(user);
          return { body: (await ctx.core.siteHealth.runAll()).map(siteHealthView) };
        },
      }),
    ],
  },
  ...SITE_HEALTH_TESTS.map(testRoute),
];
