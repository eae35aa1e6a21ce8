// The mailer namespace's routes of issue 11's first mailer task, in the order they are matched: domains,
// statistics, and the DNS-provider connection. One list, so the dashboard's index imports it once.
import type { DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { domainRoutes } from './domain-routes.js';
import { statisticsRoutes } from './statistics-routes.js';
import { dnsConnectionRoutes } from './dns-connection-routes.js';

export const domainStatisticsDnsRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [...domainRoutes, ...statisticsRoutes, ...dnsConnectionRoutes];
