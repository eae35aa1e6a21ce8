// The dashboard interface as the API serves it: its routes and its authentication strategy. Until the
// identities core lands, no credentials are accepted: every caller is anonymous, so the public routes (the
// index, the batch route) answer and every other route answers rest_forbidden 401.
import { createDashboard, type DashboardAuth, type Dashboard } from './group.js';
import type { DashboardRoute } from './route.js';
import type { Site } from './index-document.js';

/** What GET /api says of the site. */
export const SITE: Site = { name: 'Tern', description: 'The dashboard REST interface of Tern, a mail transfer agent' };

/** The strategy before there are users: nobody is authenticated. */
export const noCredentials: DashboardAuth<never> = {
  authenticate: () => Promise.resolve(undefined),
  teamOf: () => undefined,
  permits: () => false,
};

/** The product's dashboard routes (the mailer, auth and wp/v2 namespaces come with the identities core). */
export const dashboardRoutes: ReadonlyArray<DashboardRoute<never>> = [];

export const productDashboard = (): Dashboard => createDashboard({ auth: noCredentials, routes: dashboardRoutes, site: SITE });
