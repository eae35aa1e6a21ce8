// The API process's HTTP front, above the interfaces it mounts, with one dispatcher (createApp's table):
// answers /healthz and /readyz before anything else, gives every request its id, hands /api to the dashboard
// group, mounts the route groups of /v2 (sending, admin) and the pages, each running the one pipeline
// (api/pipeline/pipeline.ts), and answers what no route takes (an unknown path, an undecodable one) in the admin
// error shape, or as a page for a browser. Nothing unexpected leaks a stack trace. It lives here, not in
// api/http, so that neither api/http nor api/web imports the other (test/architecture-http.test.ts).
import { createServer, type Server } from 'node:http';
import { App, type Request, type Response } from '@tinyhttp/app';
import { adminError } from '../shared/errors.js';
import type { AppContext } from './pipeline/context.js';
import { openApiDocument } from './http/openapi.js';
import { mountGroup, sendJson } from './pipeline/pipeline.js';
import { requestIdOf, requestLog } from './pipeline/request-id.js';
import { adminGroup } from './http/admin/group.js';
import { adminErrors } from './http/admin/error-mapper.js';
import { sendingGroup } from './http/send/group.js';
import { sendingPaths } from './http/send/openapi.js';
import { answerHealth } from '../shared/health-endpoints.js';
import type { Dashboard } from './http/dashboard/group.js';
import { productDashboard } from './http/dashboard/index.js';
import { dashboardPaths, dashboardSecuritySchemes } from './http/dashboard/openapi.js';
import { mountWebPages } from './web/index.js';
import { serveMissingPage, wantsJson } from './web/error-pages.js';

/** The admin document with the sending operations, the dashboard's routes and their credentials added. */
function apiDocument(ctx: AppContext, dashboard: Dashboard): Record<string, unknown> {
  const document = openApiDocument(adminGroup.routes, ctx.config);
  const paths = document.paths as Record<string, Record<string, unknown>>;
  for (const [path, operations] of Object.entries(sendingPaths())) paths[path] = { ...operations, ...paths[path] };
  Object.assign(paths, dashboardPaths(dashboard.routes));
  const components = document.components as { securitySchemes: Record<string, unknown> };
  components.securitySchemes.sendingKey = { type: 'http', scheme: 'bearer', description: 'A sending key, tern_… (also accepted as api_key in the body)' };
  Object.assign(components.securitySchemes, dashboardSecuritySchemes);
  return document;
}

/** /api and everything under it: the dashboard's, whatever follows (it answers rest_no_route itself). */
const isDashboardPath = (url: string | undefined): boolean => /^\/api(?:[/?#]|$)/.test(url ?? '/');

function decodablePath(url: string | undefined): boolean {
  try {
    decodeURIComponent(new URL(url ?? '/', 'http://local').pathname);
    return true;
  } catch {
    return false;
  }
}

/** The dashboard's group under /api: it matches its own endpoints as WordPress does (dashboard/router.ts). */
function serveDashboard(ctx: AppContext, dashboard: Dashboard, req: Request, res: Response): void {
  dashboard.serve(ctx, req, res).catch((err: unknown) => {
    requestLog(ctx.log, req, res).error({ err }, 'dashboard request failed');
    if (!res.headersSent) sendJson(res, 500, { code: 'rest_internal_error', message: 'Internal error; it has been logged.', data: { status: 500 } });
  });
}

/**
 * What precedes every route group, in order: the health endpoints, the request id, /api to the dashboard
 * group, an undecodable path refused. One middleware, so a request reaching a route pays one step of the table.
 */
function mountFront(app: App, ctx: AppContext, dashboard: Dashboard): void {
  app.use((req: Request, res: Response, next) => {
    // Before everything else, authentication included: load balancers and service managers ask these.
    if (answerHealth(req, res, () => ctx.core.health.readiness())) return;
    requestIdOf(req, res);
    // Before the undecodable path's refusal: the dashboard answers such a path itself (rest_no_route).
    if (isDashboardPath(req.url)) return serveDashboard(ctx, dashboard, req, res);
    // tinyhttp answers a path it cannot percent-decode with a bare 400 and prints the stack: answer it here.
    if (decodablePath(req.url)) return next();
    const e = adminError('invalid_path', 'The request path is not valid percent-encoded text');
    sendJson(res, e.status, e.body());
  });
}

/**
 * The one dispatcher of the API's port: every request goes through this app's table, in order: the front
 * (health, request id, /api to the dashboard group, an undecodable path refused), the OpenAPI document, the
 * route groups (sending, admin, the pages), and what no route takes (a page for a browser, JSON for a program).
 */
export function createApp(ctx: AppContext, dashboard: Dashboard = productDashboard()): App {
  const app = new App({
    settings: { xPoweredBy: false },
    noMatchHandler: (req, res) => {
      requestIdOf(req, res);
      // A browser's navigation to a page that does not exist gets a page; a program (and /v2) keeps the JSON.
      if (!wantsJson(req, 'json')) return void serveMissingPage(ctx, req, res);
      const e = adminError('route_not_found', `No route for ${req.method} ${new URL(req.url ?? '/', 'http://local').pathname}`);
      sendJson(res, e.status, e.body());
    },
    onError: (err, req, res) => {
      const answer = adminErrors.answer(err, requestLog(ctx.log, req, res));
      sendJson(res, answer.status, answer.body, answer.headers);
    },
  });
  mountFront(app, ctx, dashboard);
  const document = apiDocument(ctx, dashboard);
  app.get('/v2/openapi.json', (_req, res) => sendJson(res, 200, document));
  // Sending first, as it always was: its two POST paths sit beside the admin GET /v2/emails routes.
  mountGroup(app, ctx, sendingGroup);
  mountGroup(app, ctx, adminGroup);
  // The pages' route group (and their static files), outside /api: they are pages, not REST routes.
  mountWebPages(app, ctx);
  return app;
}

export interface ApiOptions {
  /** The dashboard served under /api; the product's by default (tests plug in a fixture group). */
  dashboard?: Dashboard;
}

export function createApiServer(ctx: AppContext, options: ApiOptions = {}): Server {
  const app = createApp(ctx, options.dashboard ?? productDashboard());
  const server = createServer((req, res) => void app.handler(req as Request, res as Response));
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  return server;
}
