// The dashboard route group on the one pipeline: its authentication strategy (plugged in: a session cookie
// with its nonce, or an application password), WordPress's error shape, its one param set, and the endpoint's
// permission checked after validation (WordPress's order). createDashboard adds the root's own routes (the
// index, each namespace's index, the batch route) to the given ones, and serves /api with them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../../shared/config.js';
import type { Logger } from '../../../shared/log.js';
import { observeHttp } from '../../../shared/metrics.js';
import type { AppContext } from '../../pipeline/context.js';
import { readJsonBody } from '../../pipeline/body.js';
import { requestLog } from '../../pipeline/request-id.js';
import { incomingOf, originOf, runCall, sendJson, type Answer, type Call, type Incoming, type RouteGroup } from '../../pipeline/pipeline.js';
import type { PipelineRoute, RouteInput } from '../../pipeline/route.js';
import { dashboardErrors, forbidden, noRoute, tooManyRequests } from '../../pipeline/dashboard-errors.js';
import { rateLimitHeaders } from '../../../shared/rate-limit.js';
import type { WriteBucket } from '../../../shared/core/write-rates.js';
import { namespaceIndex, namespacesOf, restIndex, restUrl, type Site } from './index-document.js';
import { paramsOf, type ParamsChecked } from './params.js';
import { checkPaging } from './mailer-paging.js';
import { createRouter, type Match, type Router } from './router.js';
import { endpoint, rateOf, routePath, StreamedBody, type AnyEndpoint, type DashboardRoute, type Permission } from './route.js';
import { batchRoute } from './batch.js';
import { Type } from '@sinclair/typebox';
import { applyGlobals, phpQuery, routedMethod, type EmbedFetch } from './wordpress-globals.js';

/**
 * How the dashboard knows who calls: the lead's strategy (session cookie + X-WP-Nonce or _wpnonce, HTTP Basic
 * with an application password) implements it; the group does the rest.
 */
export interface DashboardAuth<U> {
  /**
   * The user the request's credentials name, or undefined when it carries none the strategy accepts (an
   * anonymous caller: public endpoints run, others answer rest_forbidden 401). Throws a DashboardError for
   * credentials it refuses outright (a cookie with a wrong nonce: rest_cookie_invalid_nonce).
   */
  authenticate(ctx: AppContext, req: Incoming): Promise<U | undefined>;
  /** The team the user acts on, echoed in X-Account-Id. */
  teamOf(user: U): number | undefined;
  /** Whether the user may call an endpoint of this permission on the team acted on. */
  permits(user: U, permission: Exclude<Permission, 'public'>): boolean;
  /** Headers every answer to the user carries (a fresh X-WP-Nonce for a cookie session). */
  answerHeaders?(user: U): Record<string, string>;
  /**
   * Throws a DashboardError when the user may not call this endpoint at all yet, whatever its params (a
   * password that must change first); run before validation, as WordPress's rest_authentication_errors.
   */
  admits?(ctx: AppContext, user: U, endpoint: AnyEndpoint<U>): void;
  /** The account whose write allowance the user's changes use (that of the team acted on); undefined: none. */
  accountOf(user: U): number | undefined;
  /**
   * The caller a batch item runs as: the batch's user, acting on the team the item's own headers name (as the
   * item sent alone would); throws the DashboardError the item answers with when that team is refused.
   */
  forItem?(ctx: AppContext, user: U, req: Incoming): Promise<U>;
}

/** The caller as the pipeline carries it: a user, or nobody. */
export interface Visitor<U> {
  readonly user: U | undefined;
}

/** A matched endpoint as the pipeline runs it. */
interface Routed<U> extends PipelineRoute<Visitor<U>> {
  readonly match: Match<U>;
}

type DashboardCall<U> = Call<Visitor<U>, Routed<U>>;

function inputOf<U>(call: DashboardCall<U>): RouteInput<unknown, unknown, unknown, Visitor<U>> {
  const checked = paramsOf(call.route.match.endpoint.args, call.req);
  if (!checked.ok) throw checked.error;
  checkPaging(call.route.match.endpoint.args, checked.params, call.ctx.config);
  return { ctx: call.ctx, caller: call.caller, body: call.body, query: call.query, params: checked.params, log: call.log, request: call.req };
}

function groupOf<U>(auth: DashboardAuth<U>): RouteGroup<Visitor<U>, Routed<U>> {
  return {
    bodyLimit: (config: Config) => config.api.bodyLimitBytes,
    auth: {
      authenticate: async (ctx, req) => ({ user: await auth.authenticate(ctx, req) }),
      teamOf: (visitor) => (visitor.user === undefined ? undefined : auth.teamOf(visitor.user)),
    },
    errors: dashboardErrors,
    checks: [
      ({ caller, headers }) => {
        if (caller.user !== undefined && auth.answerHeaders) Object.assign(headers, auth.answerHeaders(caller.user));
      },
      ({ ctx, caller, route }) => {
        const endpoint = route.match.endpoint;
        if (caller.user !== undefined && endpoint.permission !== 'public' && auth.admits) auth.admits(ctx, caller.user, endpoint);
      },
    ],
    input: inputOf,
    // The permission is checked once the params are valid, as WordPress does (respond_to_request).
    around: async ({ ctx, route, caller, req, headers }, handler) => {
      const permission = route.match.endpoint.permission;
      if (permission !== 'public') {
        if (caller.user === undefined) throw forbidden(true);
        if (!auth.permits(caller.user, permission)) throw forbidden(false);
      }
      const bucket = rateOf(route.match.endpoint, req.method);
      const accountId = bucket && caller.user !== undefined ? auth.accountOf(caller.user) : undefined;
      if (bucket && accountId !== undefined) await takeWrite(ctx, accountId, bucket, headers);
      return handler();
    },
    routes: [],
  };
}

/** Counts a change against the account's bucket: RateLimit-* on the answer, 429 past the limit. */
async function takeWrite(ctx: AppContext, accountId: number, bucket: WriteBucket, headers: Record<string, string>): Promise<void> {
  const decision = await ctx.core.writeRates.take(accountId, bucket);
  Object.assign(headers, rateLimitHeaders(decision));
  if (!decision.allowed) {
    throw tooManyRequests(`Rate limit of ${decision.limit} changes per minute exceeded; retry in ${decision.resetS} s`, decision.resetS);
  }
}

function routedOf<U>(match: Match<U>): Routed<U> {
  return {
    match,
    handle: (input) =>
      match.endpoint.handle({ ctx: input.ctx, user: input.caller.user, params: input.params as Record<string, unknown>, request: input.request, log: input.log }),
  };
}

/** What the batch route needs of the dashboard: match, check and run an item with the batch's own caller. */
export interface Dispatcher<U> {
  match(method: string, path: string): Match<U> | undefined;
  check(match: Match<U>, req: Incoming): ParamsChecked;
  runAs(ctx: AppContext, user: U | undefined, match: Match<U>, req: Incoming, log: Logger): Promise<Answer>;
}

export interface Dashboard {
  /** Every route served, the root's own included, as the index lists them. */
  readonly routes: ReadonlyArray<DashboardRoute<unknown>>;
  /** Answers a request whose path is /api or under it. */
  serve(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface DashboardOptions<U> {
  auth: DashboardAuth<U>;
  routes: ReadonlyArray<DashboardRoute<U>>;
  site: Site;
}

/** The index and each namespace's index: public, as WordPress serves them. */
function indexRoutes<U>(site: Site, all: () => ReadonlyArray<DashboardRoute<unknown>>, namespaces: readonly string[]): Array<DashboardRoute<U>> {
  const root: DashboardRoute<U> = {
    namespace: '',
    path: '/',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({}),
        permission: 'public',
        summary: 'The REST index',
        handle: ({ request }) => Promise.resolve({ body: restIndex(site, all(), request.origin) }),
      }),
    ],
  };
  const perNamespace = namespaces.map((namespace): DashboardRoute<U> => ({
    namespace: namespace as DashboardRoute<U>['namespace'],
    path: '',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({}),
        permission: 'public',
        summary: `The ${namespace} namespace index`,
        handle: ({ request }) => Promise.resolve({ body: namespaceIndex(namespace, all(), request.origin) }),
      }),
    ],
  }));
  return [root, ...perNamespace];
}

/** A request as routed: its method (a POST may name another), its path under /api and its query as PHP reads it. */
interface RoutedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
}

/** The path under /api as routed: /api and /api/ are the root; a trailing slash is dropped, as WordPress. */
function restPath(url: string | undefined): string {
  const pathname = new URL(url ?? '/', 'http://local').pathname.slice('/api'.length);
  return pathname.replace(/\/+$/, '') || '/';
}

/** The headers WordPress's serve_request puts on every answer. */
const restHeaders = (origin: string): Record<string, string> => ({
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
  'Access-Control-Expose-Headers': 'X-WP-Total, X-WP-TotalPages, Link',
  'Access-Control-Allow-Headers': 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type',
  'Cache-Control': 'no-store',
  Link: `<${restUrl(origin, '/')}>; rel="https://api.w.org/"`,
});

/**
 * A streamed answer: its headers, then the body as it is produced (chunked), at the pace the client reads. A
 * failure once the headers are out can only cut the answer short: it is logged and the connection closed.
 */
async function sendStream(res: ServerResponse, status: number, body: StreamedBody, headers: Record<string, string>, log: Logger): Promise<void> {
  res.writeHead(status, { ...headers, 'Content-Type': body.contentType });
  try {
    await pipeline(body.open(), res);
  } catch (err) {
    log.warn({ err }, 'streamed answer cut short');
  }
}

/** A route definition the dashboard cannot serve is a programming error, found at start. */
function checkDefinitions<U>(routes: ReadonlyArray<DashboardRoute<U>>): void {
  for (const route of routes) {
    for (const e of route.endpoints) {
      if (e.streamedBody && e.allowBatch) throw new Error(`${routePath(route)}: an endpoint that streams its body cannot run in a batch`);
    }
  }
}

/** A linked resource fetched for `_embed`: a GET of its URL, as the same caller, with context=embed. */
function embedFetch<U>(router: Router<U>, group: RouteGroup<Visitor<U>, Routed<U>>, ctx: AppContext, req: IncomingMessage, log: Logger): EmbedFetch {
  const root = restUrl(originOf(req), '/');
  return async (href) => {
    if (!href.startsWith(root)) return dashboardErrors.answer(noRoute(), log);
    const url = new URL(href);
    const path = restPath(url.pathname + url.search);
    const match = router.match('GET', path);
    if (!match) return dashboardErrors.answer(noRoute(), log);
    const query = { ...phpQuery(url.pathname + url.search), context: 'embed' };
    const flat = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const headers = { ...req.headers, 'content-length': undefined, 'content-type': undefined };
    const incoming: Incoming = {
      method: 'GET',
      path,
      params: match.params,
      query: flat,
      phpQuery: query,
      headers,
      body: undefined,
      origin: originOf(req),
      address: req.socket.remoteAddress ?? '',
    };
    return runCall(ctx, group, routedOf(match), incoming, log);
  };
}

export function createDashboard<U>(options: DashboardOptions<U>): Dashboard {
  checkDefinitions(options.routes);
  const group = groupOf(options.auth);
  let all: ReadonlyArray<DashboardRoute<U>> = [];
  const namespaces = namespacesOf(options.routes);
  const dispatcher: Dispatcher<U> = {
    match: (method, path) => router.match(method, path),
    check: (match, req) => paramsOf(match.endpoint.args, req),
    runAs: (ctx, user, match, req, log) => {
      // The item's caller is made where a request's is (authenticate), so a refused team answers as the item's error.
      const authenticate = async () => ({ user: user !== undefined && options.auth.forItem ? await options.auth.forItem(ctx, user, req) : user });
      return runCall(ctx, { ...group, auth: { authenticate, teamOf: (visitor) => group.auth.teamOf(visitor) } }, routedOf(match), req, log);
    },
  };
  const [root, ...nsIndexes] = indexRoutes<U>(options.site, () => all, namespaces);
  all = [root!, batchRoute(dispatcher), ...nsIndexes, ...options.routes];
  const router = createRouter(all);

  async function answer(ctx: AppContext, req: IncomingMessage, routed: RoutedRequest, match: Match<U> | undefined, log: Logger): Promise<Answer> {
    if (!match) return dashboardErrors.answer(noRoute(), log);
    const incoming = (body: unknown): Incoming => ({ ...incomingOf(req, routed.path, match.params, body), method: routed.method, phpQuery: routed.query });
    // An endpoint that streams its body (an upload) reads it itself, within its own limit, once authorized.
    if (match.endpoint.streamedBody) return runCall(ctx, group, routedOf(match), { ...incoming(undefined), stream: req }, log);
    let body: unknown;
    try {
      body = await readJsonBody(req, group.bodyLimit(ctx.config));
    } catch (err) {
      return dashboardErrors.answer(err, log);
    }
    return runCall(ctx, group, routedOf(match), incoming(body), log);
  }

  return {
    routes: all,
    async serve(ctx, req, res) {
      const query = phpQuery(req.url);
      const routed: RoutedRequest = { method: routedMethod(req, query), path: restPath(req.url), query };
      const match = router.match(routed.method, routed.path);
      const template = match ? `/api${routePath(match.route)}` : '/api/*';
      observeHttp(res, routed.method, template);
      const log = requestLog(ctx.log, req, res, { route: `${routed.method} ${template}` });
      const raw = await answer(ctx, req, routed, match, log);
      const reply = raw.body instanceof StreamedBody ? raw : await applyGlobals(raw, query, embedFetch(router, group, ctx, req, log));
      const base = restHeaders(originOf(req));
      const link = reply.headers.Link ? `${base.Link}, ${reply.headers.Link}` : base.Link!;
      const headers = { ...base, ...reply.headers, Link: link };
      if (reply.body instanceof StreamedBody) await sendStream(res, reply.status, reply.body, headers, log);
      else sendJson(res, reply.status, reply.body, headers);
    },
  };
}
