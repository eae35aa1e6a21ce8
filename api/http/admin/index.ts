// Every route of the /v2 admin interface, in the order the OpenAPI document lists them.
import type { AnyRoute } from '../../pipeline/route.js';
import { infoRoutes } from './info.js';
import { domainRoutes } from './domains.js';
import { teamRoutes } from './teams.js';
import { apiKeyRoutes } from './api-keys.js';
import { webhookRoutes } from './webhooks.js';
import { suppressionRoutes } from './suppressions.js';
import { emailRoutes } from './emails.js';

/** Every route of the admin interface, in the order the OpenAPI document lists them. */
export const adminRoutes: readonly AnyRoute[] = [...infoRoutes, ...domainRoutes, ...teamRoutes, ...apiKeyRoutes, ...webhookRoutes, ...suppressionRoutes, ...emailRoutes];
