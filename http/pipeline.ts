// The one pipeline every /v2 route runs, whatever its group: read the body (the group's limit), authenticate
// (the group's strategy), echo the team acted on, the group's checks, validation, the handler (wrapped by
// the group: idempotency for sends), and every failure through the group's error mapper. A route group is
// its authentication strategy, its error mapper and its routes; a new interface adds a group, not a pipeline.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, Request, Response } from '@tinyhttp/app';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import { isTransientFailure } from '../shared/transient.js';
import { observeHttp } from '../shared/metrics.js';
import type { AppContext } from './context.js';
import type { GroupRoute, RouteResponse, RouteInput } from './route.js';
import { readJsonBody } from './body.js';
import { requestLog } from './request-id.js';
import { validate } from './validate.js';

/**
 * Who calls a route group: admin key, sending key; next, a dashboard session (cookie and nonce) and a
 * WordPress application password. It reads what it needs off the request (headers, the body's api_key, the
 * route's X-Account-Id rule) and throws its group's error when it refuses.
 */
export interface AuthStrategy<Caller, R> {
  authenticate(ctx: AppContext, req: IncomingMessage, body: unknown, route: R): Promise<Caller>;
  /** The team the request acts on, echoed in X-Account-Id from then on, failures included. */
  teamOf(caller: Caller): number;
}

/** A reply with everything settled: what the pipeline writes. */
export interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Turns any failure into an answer in one interface's error shape. */
export interface ErrorMapper {
  answer(err: unknown, log: Logger): Answer;
}

/** What an interface says, in its shape, for its own errors and for the two failures every interface has. */
export interface ErrorShape {
  /** The interface's own errors and body errors; undefined for anything else. */
  known(err: unknown): Answer | undefined;
  unavailable(): Answer;
  internal(): Answer;
}

/** Seconds a client is told to wait after a transient failure. */
const RETRY_AFTER_S = '5';

/**
 * An interface's error mapper. The policy for failures nobody threw on purpose is written once, here:
 * a transient one (Redis away, SQLite busy) is 503 with Retry-After, logged as a warning; anything else is
 * 500, logged with its stack on the request's logger, and answered without internals.
 */
export function errorMapper(shape: ErrorShape): ErrorMapper {
  return {
    answer(err, log) {
      const known = shape.known(err);
      if (known) return known;
      if (isTransientFailure(err)) {
        log.warn({ err: (err as Error).message }, 'temporarily unavailable');
        const unavailable = shape.unavailable();
        return { ...unavailable, headers: { ...unavailable.headers, 'Retry-After': RETRY_AFTER_S } };
      }
      log.error({ err }, 'unexpected error');
      return shape.internal();
    },
  };
}

/** One authenticated request on its way through the pipeline, as the group's checks see it. */
export interface Call<Caller, R> {
  readonly ctx: AppContext;
  readonly req: Request;
  readonly route: R;
  readonly caller: Caller;
  /** The body as read, before any validation. */
  readonly body: unknown;
  readonly query: Record<string, string>;
  readonly log: Logger;
  /** Response headers gathered on the way (X-Account-Id, RateLimit-*): kept on a failure too. */
  readonly headers: Record<string, string>;
}

export interface RouteGroup<Caller, R extends GroupRoute<Caller>> {
  /** The largest body a route of the group reads. */
  readonly bodyLimit: (config: Config) => number;
  readonly auth: AuthStrategy<Caller, R>;
  readonly errors: ErrorMapper;
  /** Run in order after authentication (X-Account-Id rules, scopes, rate limits); each may add headers or throw. */
  readonly checks: ReadonlyArray<(call: Call<Caller, R>) => Promise<void> | void>;
  /** Wraps the handler (idempotency for sends); without it the handler runs as is. */
  readonly around?: (call: Call<Caller, R>, handler: () => Promise<RouteResponse>) => Promise<RouteResponse>;
  readonly routes: readonly R[];
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
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

/** The handler's input: body, query and path validated against the route's schemas, where it has them. */
function inputOf<C, R extends GroupRoute<C>>(call: Call<C, R>): RouteInput<unknown, unknown, unknown, C> {
  const { route, body, query } = call;
  return {
    ctx: call.ctx,
    caller: call.caller,
    log: call.log,
    body: route.body && !(route.bodyOptional && body === undefined) ? validate(route.body, body, 'body', route.fieldCodes) : body,
    query: route.query ? validate(route.query, query, 'query') : query,
    params: route.params ? validate(route.params, { ...call.req.params }, 'path') : {},
  };
}

async function runRoute<C, R extends GroupRoute<C>>(ctx: AppContext, group: RouteGroup<C, R>, route: R, req: Request, log: Logger): Promise<Answer> {
  const headers: Record<string, string> = {};
  try {
    const body = await readJsonBody(req, group.bodyLimit(ctx.config));
    const caller = await group.auth.authenticate(ctx, req, body, route);
    headers['X-Account-Id'] = String(group.auth.teamOf(caller));
    const call: Call<C, R> = { ctx, req, route, caller, body, query: queryOf(req), log, headers };
    for (const check of group.checks) await check(call);
    const input = inputOf(call);
    const handler = () => route.handle(input);
    const reply = await (group.around ? group.around(call, handler) : handler());
    return { status: reply.status ?? 200, body: reply.body, headers: { ...headers, ...reply.headers } };
  } catch (err) {
    const failure = group.errors.answer(err, log);
    return { ...failure, headers: { ...headers, ...failure.headers } };
  }
}

const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Mounts a group's routes: each request measured, logged under its request id, and answered never cached. */
export function mountGroup<C, R extends GroupRoute<C>>(app: App, ctx: AppContext, group: RouteGroup<C, R>): void {
  for (const route of group.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    const label = `${route.method} ${route.path}`;
    app[method](toExpressPath(route.path), async (req: Request, res: Response) => {
      observeHttp(res, route.method, route.path);
      const answer = await runRoute(ctx, group, route, req, requestLog(ctx.log, req, res, { route: label }));
      sendJson(res, answer.status, answer.body, { 'Cache-Control': 'no-store', ...answer.headers });
    });
  }
}
