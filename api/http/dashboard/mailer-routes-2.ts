// The mailer namespace's routes for logs, teams, keys, webhooks and suppressions, as one list for index.ts.
import type { DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { logRoutes } from './log-routes.js';
import { teamRoutes } from './team-routes.js';
import { keyRoutes } from './key-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { suppressionRoutes } from './suppression-routes.js';

export const mailerRoutes2: ReadonlyArray<DashboardRoute<DashboardCaller>> = [...logRoutes, ...teamRoutes, ...keyRoutes, ...webhookRoutes, ...suppressionRoutes];
