// A route is data: method, path, schemas and a handler, plus, for the admin routes, scopes and rate bucket.
// The same definitions mount the HTTP routes and generate the OpenAPI document, so the two cannot drift apart.
import type { Static, TSchema, TObject } from '@sinclair/typebox';
import type { AppContext } from './context.js';
import type { Logger } from '../../shared/log.js';
import type { Scope } from '../../shared/scopes.js';
import type { AdminErrorCode } from '../../shared/errors.js';
import type { AdminCaller } from '../../shared/core/admin-authentication.js';
import type { Incoming } from './pipeline.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Which shared rate bucket a request counts against. */
export type RatePolicy = 'domains' | 'writes' | 'writes-when-search' | null;

/** The authenticated admin caller and the team the request acts on. */
export type Caller = AdminCaller;

export interface RouteResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What a handler is given; `C` is the caller its group's authentication found (an admin key by default). */
export interface RouteInput<B, Q, P, C = Caller> {
  ctx: AppContext;
  caller: C;
  body: B;
  query: Q;
  params: P;
  /** The request's logger, bound to its request id and route: handlers log with it. */
  log: Logger;
  /** The request as the pipeline ran it (headers, origin, path): for what the validated parts do not carry. */
  request: Incoming;
}

/** What the pipeline itself needs of a route: its handler. */
export interface PipelineRoute<C> {
  handle(input: RouteInput<unknown, unknown, unknown, C>): Promise<RouteResponse>;
}

/** What mounting needs of a /v2 route of any group: where it is, what it validates, and its handler. */
export interface GroupRoute<C> extends PipelineRoute<C> {
  method: Method;
  path: string;
  body?: TSchema;
  bodyOptional?: boolean;
  fieldCodes?: Readonly<Record<string, AdminErrorCode>>;
  query?: TObject;
  params?: TObject;
}

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
}

interface RouteShape<B extends TSchema, Q extends TObject, P extends TObject> {
  method: Method;
  /** OpenAPI-style path, e.g. `/v2/domains/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** Scopes the key must hold (a :write scope includes its :read). */
  scopes: readonly Scope[];
  rate: RatePolicy;
  /** True for routes that must be sent without X-Account-Id (POST /v2/teams). */
  forbidsTeamHeader?: boolean;
  /** True for routes that always act on the key's own account whatever X-Account-Id says (GET /v2/teams). */
  ignoresTeamHeader?: boolean;
  body?: B;
  /** The body may be left out altogether (DELETE /v2/suppressions takes the email in the query instead). */
  bodyOptional?: boolean;
  /** Error codes for validation failures on particular top-level body fields. */
  fieldCodes?: Readonly<Record<string, AdminErrorCode>>;
  query?: Q;
  params?: P;
  responses: Readonly<Record<number, ResponseDoc>>;
}

export interface RouteDef<B extends TSchema, Q extends TObject, P extends TObject> extends RouteShape<B, Q, P> {
  handle(input: RouteInput<Static<B>, Static<Q>, Static<P>>): Promise<RouteResponse>;
}

/** An admin route with its types erased, as the pipeline and the OpenAPI generator see it. */
export interface AnyRoute extends RouteShape<TSchema, TObject, TObject>, GroupRoute<Caller> {
  handle(input: RouteInput<unknown, unknown, unknown>): Promise<RouteResponse>;
}

export function defineRoute<B extends TSchema = TObject, Q extends TObject = TObject, P extends TObject = TObject>(def: RouteDef<B, Q, P>): AnyRoute {
  return def;
}
