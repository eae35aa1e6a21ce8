// The one pipeline every route runs, whatever its group: read the body (the group's limit), authenticate
// (the group's strategy), echo the team acted on, the group's checks, validation (the group's way of reading
// its input), the handler (wrapped by the group: idempotency for sends, the permission for the dashboard),
// and every failure through the group's error mapper. A route group is its authentication strategy, its error
// mapper and its routes; a new interface adds a group, not a pipeline. The pipeline runs a normalized request
// (Incoming), so a request that did not come from a socket (an item of a batch) runs through it as well.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { App, Request, Response } from '@tinyhttp/app';
import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { AdminErrorCode } from '../../shared/errors.js';
import { isTransientFailure } from '../../shared/transient.js';
import { observeHttp } from '../../shared/metrics.js';
import type { AppContext } from './context.js';
import type { GroupRoute, PipelineRoute, RouteResponse, RouteInput } from './route.js';
import { readJsonBody } from './body.js';
import { requestLog } from './request-id.js';
import { check, type InputPart, type InputProblem } from './validate.js';

/** A request as the pipeline runs it, whether it came from a socket or from a batch. */
export interface Incoming {
  readonly method: string;
  /** The path as routed (for the dashboard, relative to /api). */
  readonly path: string;
  /** The path's variables, as matched (text). */
  readonly params: Readonly<Record<string, string>>;
  /** The query string, first value of each name. */
  readonly query: Readonly<Record<string, string>>;
  /**
   * The query as PHP reads it (brackets make arrays: `include[]=1&include[]=2`), where the interface reads it so
   * (the dashboard, as WordPress clients write arrays that way); `query` otherwise.
   */
  readonly phpQuery?: Readonly<Record<string, unknown>>;
  readonly headers: IncomingHttpHeaders;
  /** The body as read (parsed JSON), before any validation; undefined when none was sent. */
  readonly body: unknown;
  /** scheme://host the client addressed, for the absolute URLs an answer carries. */
  readonly origin: string;
  /** The client's IP address, as the socket sees it (login throttling and the auth log record it). */
  readonly address: string;
  /**
   * The body still unread, for a route that reads it itself as a stream (a dashboard upload); `body` is then
   * undefined. Absent for every other route and for a batch item.
   */
  readonly stream?: Readable;
}

/** What an authentication strategy reads: the request's headers (and, for some, its body). */
export type WithHeaders = Pick<Incoming, 'headers'>;

/**
 * Who calls a route group: admin key, sending key; next, a dashboard session (cookie and nonce) and a
 * WordPress application password. It reads what it needs off the request (headers, the body's api_key, the
 * route's X-Account-Id rule) and throws its group's error when it refuses.
 */
export interface AuthStrategy<Caller, R> {
  authenticate(ctx: AppContext, req: Incoming, body: unknown, route: R): Promise<Caller>;
  /** The team the request acts on, echoed in X-Account-Id from then on, failures included; none for anonymous. */
  teamOf(caller: Caller): number | undefined;
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
  readonly req: Incoming;
  readonly route: R;
  readonly caller: Caller;
  /** The body as read, before any validation. */
  readonly body: unknown;
  readonly query: Record<string, string>;
  readonly log: Logger;
  /** Response headers gathered on the way (X-Account-Id, RateLimit-*): kept on a failure too. */
  readonly headers: Record<string, string>;
}

export interface RouteGroup<Caller, R extends PipelineRoute<Caller>> {
  /** The largest body a route of the group reads. */
  readonly bodyLimit: (config: Config) => number;
  readonly auth: AuthStrategy<Caller, R>;
  readonly errors: ErrorMapper;
  /** Run in order after authentication (X-Account-Id rules, scopes, rate limits); each may add headers or throw. */
  readonly checks: ReadonlyArray<(call: Call<Caller, R>) => Promise<void> | void>;
  /** Reads and validates the handler's input (the dashboard's one param set); without it, body, query and path apart. */
  readonly input?: (call: Call<Caller, R>) => RouteInput<unknown, unknown, unknown, Caller>;
  /** Wraps the handler, after validation (idempotency for sends); without it the handler runs as is. */
  readonly around?: (call: Call<Caller, R>, handler: () => Promise<RouteResponse>) => Promise<RouteResponse>;
  readonly routes: readonly R[];
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function queryOf(req: IncomingMessage): Record<string, string> {
  const params = new URL(req.url ?? '/', 'http://local').searchParams;
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}

/** A part of the request that failed its route's schema, for the group's error mapper to word. */
export class InvalidInput extends Error {
  constructor(
    readonly where: InputPart,
    /** Undefined: the body was required and left out. */
    readonly problem: InputProblem | undefined,
    readonly codes: Readonly<Record<string, AdminErrorCode>> = {},
  ) {
    super(problem ? `invalid ${where}` : 'body required');
  }
}

function checked<T>(schema: TSchema, value: unknown, where: InputPart, codes?: Readonly<Record<string, AdminErrorCode>>): T {
  const input = value === undefined && where !== 'body' ? {} : value;
  const result = check<T>(schema, input, where !== 'body');
  if (result.ok) return result.value;
  throw new InvalidInput(where, where === 'body' && value === undefined ? undefined : result.problem, codes);
}

/** The /v2 way: body, query and path validated apart against the route's schemas, where it has them. */
function separateInput<C, R extends PipelineRoute<C>>(call: Call<C, R>): RouteInput<unknown, unknown, unknown, C> {
  const { body, query } = call;
  const route = call.route as unknown as GroupRoute<C>;
  return {
    ctx: call.ctx,
    caller: call.caller,
    log: call.log,
    request: call.req,
    body: route.body && !(route.bodyOptional && body === undefined) ? checked(route.body, body, 'body', route.fieldCodes) : body,
    query: route.query ? checked(route.query, query, 'query') : query,
    params: route.params ? checked(route.params, { ...call.req.params }, 'path') : {},
  };
}

/**
 * Runs one normalized request through a group's pipeline: authentication, the team echoed, the group's
 * checks, its input, the handler (wrapped), and any failure through the group's error mapper.
 */
export async function runCall<C, R extends PipelineRoute<C>>(ctx: AppContext, group: RouteGroup<C, R>, route: R, req: Incoming, log: Logger): Promise<Answer> {
  const headers: Record<string, string> = {};
  try {
    const caller = await group.auth.authenticate(ctx, req, req.body, route);
    const team = group.auth.teamOf(caller);
    if (team !== undefined) headers['X-Account-Id'] = String(team);
    const call: Call<C, R> = { ctx, req, route, caller, body: req.body, query: req.query, log, headers };
    for (const check of group.checks) await check(call);
    const input = (group.input ?? separateInput)(call);
    const handler = () => route.handle(input);
    const reply = await (group.around ? group.around(call, handler) : handler());
    return { status: reply.status ?? 200, body: reply.body, headers: { ...headers, ...reply.headers } };
  } catch (err) {
    const failure = group.errors.answer(err, log);
    return { ...failure, headers: { ...headers, ...failure.headers } };
  }
}

/** scheme://host as the client addressed this server (the Host header; https on a TLS socket). */
export function originOf(req: IncomingMessage): string {
  const tls = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${tls ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

/** A socket's request, its body read, as the pipeline runs it. */
export function incomingOf(req: IncomingMessage, path: string, params: Record<string, string>, body: unknown): Incoming {
  return { method: req.method ?? 'GET', path, params, query: queryOf(req), headers: req.headers, body, origin: originOf(req), address: req.socket.remoteAddress ?? '' };
}

async function runRoute<C, R extends GroupRoute<C>>(ctx: AppContext, group: RouteGroup<C, R>, route: R, req: Request, log: Logger): Promise<Answer> {
  let body: unknown;
  try {
    body = await readJsonBody(req, group.bodyLimit(ctx.config));
  } catch (err) {
    return group.errors.answer(err, log);
  }
  return runCall(ctx, group, route, incomingOf(req, route.path, { ...req.params }, body), log);
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
