// The HTTP sidecar: mounts the route definitions on tinyhttp and applies, in order, body reading,
// authentication, the X-Account-Id echo, scopes, rate limits and validation. Every failure leaves in
// the admin error shape; nothing unexpected leaks a stack trace.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { App, type Request, type Response } from '@tinyhttp/app';
import { AdminError, adminError } from '../shared/errors.js';
import { missingScope } from '../shared/scopes.js';
import { hitRateLimit, rateLimitHeaders } from '../shared/rate-limit.js';
import { readJsonBody } from './body.js';
import { isTransientFailure } from '../shared/transient.js';
import { authenticateAdmin, hasAccountIdHeader, type AccountIdMode } from './auth.js';
import { validate } from './validate.js';
import type { AppContext } from './context.js';
import type { AnyRoute, Caller, Reply } from './route.js';
import { adminRoutes } from './admin/index.js';
import { openApiDocument } from './openapi.js';
import { sendingHandler } from './send/routes.js';
import { sendingPaths } from './send/openapi.js';
import { metricsText, observeHttp } from '../shared/metrics.js';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function queryOf(req: IncomingMessage): Record<string, string> {
  const params = new URL(req.url ?? '/', 'http://local').searchParams;
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}

async function enforceRate(ctx: AppContext, route: AnyRoute, caller: Caller, query: Record<string, string>): Promise<Record<string, string>> {
  const policy = route.rate === 'writes-when-search' ? (query.search ? 'writes' : null) : route.rate;
  if (!policy) return {};
  const limit = policy === 'domains' ? ctx.config.limits.domainCreatesPerMinute : ctx.config.limits.writesPerMinute;
  const decision = await hitRateLimit(ctx.redis, caller.rootId, policy, limit, 60);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw adminError('rate_limited', `Rate limit of ${limit} requests per minute exceeded; retry in ${decision.resetS} s`, {}, headers);
  }
  return headers;
}

const accountIdMode = (route: AnyRoute): AccountIdMode =>
  route.forbidsAccountId ? 'forbid' : route.ignoresAccountId ? 'ignore' : 'select';

async function runRoute(ctx: AppContext, route: AnyRoute, req: Request, res: Response): Promise<Reply & { headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  try {
    const body = await readJsonBody(req, ctx.config.api.bodyLimitBytes);
    const caller = await authenticateAdmin(ctx, req, body, accountIdMode(route));
    headers['X-Account-Id'] = String(caller.acting.id);
    if (route.forbidsAccountId && hasAccountIdHeader(req)) {
      throw adminError('account_id_not_allowed', 'This request must be sent without X-Account-Id: only the parent account can do it');
    }
    const missing = missingScope(caller.key.scopes, route.scopes);
    if (missing) throw adminError('insufficient_scope', `This key lacks the ${missing} scope`, { required_scope: missing });
    const query = queryOf(req);
    Object.assign(headers, await enforceRate(ctx, route, caller, query));
    const input = {
      ctx,
      caller,
      body: route.body && !(route.bodyOptional && body === undefined) ? validate(route.body, body, 'body', route.fieldCodes) : body,
      query: route.query ? validate(route.query, query, 'query') : query,
      params: route.params ? validate(route.params, { ...req.params }, 'path') : {},
    };
    const reply = await route.handle(input);
    return { ...reply, headers: { ...headers, ...reply.headers } };
  } catch (err) {
    if (err instanceof AdminError) return { status: err.status, body: err.body(), headers: { ...headers, ...err.headers } };
    if (isTransientFailure(err)) {
      ctx.log.warn({ err: (err as Error).message, route: `${route.method} ${route.path}` }, 'temporarily unavailable');
      const e = adminError('unavailable', 'Temporarily unavailable; retry shortly');
      return { status: e.status, body: e.body(), headers: { ...headers, 'Retry-After': '5' } };
    }
    ctx.log.error({ err, route: `${route.method} ${route.path}` }, 'unexpected error');
    const e = adminError('internal_error', 'Internal error; it has been logged');
    return { status: e.status, body: e.body(), headers };
  } finally {
    res.setHeader('Cache-Control', 'no-store');
  }
}

const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export function createApp(ctx: AppContext): App {
  const app = new App({
    settings: { xPoweredBy: false },
    noMatchHandler: (req, res) => {
      const e = adminError('route_not_found', `No route for ${req.method} ${new URL(req.url ?? '/', 'http://local').pathname}`);
      sendJson(res, e.status, e.body());
    },
    onError: (err, _req, res) => {
      ctx.log.error({ err }, 'unhandled error');
      const e = adminError('internal_error', 'Internal error; it has been logged');
      sendJson(res as unknown as ServerResponse, e.status, e.body());
    },
  });
  const document = openApiDocument(adminRoutes, ctx.config);
  const paths = document.paths as Record<string, Record<string, unknown>>;
  for (const [path, operations] of Object.entries(sendingPaths())) paths[path] = { ...operations, ...paths[path] };
  const components = document.components as { securitySchemes: Record<string, unknown> };
  components.securitySchemes.sendingKey = { type: 'http', scheme: 'bearer', description: 'A sending key, tern_… (also accepted as api_key in the body)' };
  app.get('/v2/openapi.json', (_req, res) => sendJson(res, 200, document));
  // Sending has its own authentication and error shape (api/send).
  app.get('/metrics', (_req, res) => void metricsText().then(({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body)));
  const measured = (route: string, handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) => {
    observeHttp(res, req.method ?? 'GET', route);
    return handler(req, res);
  };
  app.post('/v2/emails', measured('/v2/emails', sendingHandler(ctx, 'one')));
  app.post('/v2/emails/batch', measured('/v2/emails/batch', sendingHandler(ctx, 'batch')));
  for (const route of adminRoutes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    app[method](toExpressPath(route.path), async (req: Request, res: Response) => {
      observeHttp(res, route.method, route.path);
      const reply = await runRoute(ctx, route, req, res);
      sendJson(res, reply.status ?? 200, reply.body, reply.headers);
    });
  }
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

export function createApiServer(ctx: AppContext): Server {
  const app = createApp(ctx);
  const server = createServer((req, res) => {
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
