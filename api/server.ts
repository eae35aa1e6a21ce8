// The API process's HTTP front, above the interfaces it mounts: answers /healthz and /readyz before anything
// else, gives every request its id, mounts the route groups (sending, admin) on tinyhttp, where each runs the
// one pipeline (api/pipeline/pipeline.ts), hands /api to the dashboard group (its own router, the same pipeline),
// mounts the web pages, and answers what no route takes under /v2 (an unknown path, an undecodable one) in the
// admin error shape. Nothing unexpected leaks a stack trace. It lives here, not in api/http, so that neither
// api/http nor api/web imports the other (test/architecture-http.test.ts).
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
  const document = apiDocument(ctx, dashboard);
  app.get('/v2/openapi.json', (_req, res) => sendJson(res, 200, document));
  // Sending first, as it always was: its two POST paths sit beside the admin GET /v2/emails routes.
  mountGroup(app, ctx, sendingGroup);
  mountGroup(app, ctx, adminGroup);
  // The web pages (authorizing an application, signing in), outside /api: they are pages, not REST routes.
  mountWebPages(app, ctx);
  return app;
}

function decodablePath(url: string | undefined): boolean {
  try {
    decodeURIComponent(new URL(url ?? '/', 'http://local').pathname);
    return true;
  } catch {
    return false;
  }
}

export interface ApiOptions {
  /** The dashboard served under /api; the product's by default (tests plug in a fixture group). */
  dashboard?: Dashboard;
}

/** /api and everything under it: the dashboard's, whatever follows (it answers rest_no_route itself). */
const isDashboardPath = (url: string | undefined): boolean => /^\/api(?:[/?#]|$)/.test(url ?? '/');

export function createApiServer(ctx: AppContext, options: ApiOptions = {}): Server {
  const dashboard = options.dashboard ?? productDashboard();
  const app = createApp(ctx, dashboard);
  const server = createServer((req, res) => {
    // Before everything else, authentication included: load balancers and service managers ask these.
    if (answerHealth(req, res, () => ctx.core.health.readiness())) return;
    requestIdOf(req, res);
    if (isDashboardPath(req.url)) {
      dashboard.serve(ctx, req, res).catch((err: unknown) => {
        requestLog(ctx.log, req, res).error({ err }, 'dashboard request failed');
        if (!res.headersSent) sendJson(res, 500, { code: 'rest_internal_error', message: 'Internal error; it has been logged.', data: { status: 500 } });
      });
      return;
    }
    // tinyhttp answers a path it cannot percent-decode with a bare 400 and prints the stack: answer it here.
    if (!decodablePath(req.url)) {
      const e = adminError('invalid_path', 'The request path is not valid percent-encoded text');
      sendJson(res, e.status, e.body());
      return;
    }
    void app.handler(req as Request, res as Response);
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  return server;
}
