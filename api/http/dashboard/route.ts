// A dashboard route is data, as WordPress registers them: a namespace, a path with `{name}` variables (each
// with its pattern), and one or more endpoints (methods, args as one TypeBox object, a permission, batching,
// a summary, a handler). The same definitions mount the routes, build the REST index and the OpenAPI paths.
import type { Readable } from 'node:stream';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { AppContext } from '../../pipeline/context.js';
import type { Logger } from '../../../shared/log.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import type { PasswordChangeStep } from '../../../shared/core/identity/index.js';
import type { WriteBucket } from '../../../shared/core/write-rates.js';
import type { Permission as UserPermission } from '../../../shared/domain/user.js';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The namespaces of the dashboard; '' is the root's own routes (the index, the batch route), as WordPress. */
export type Namespace = 'tern/v2' | 'tern-auth/v1' | 'tern-support/v1' | 'wp/v2' | 'wp-site-health/v1' | 'oembed/1.0' | 'wp-block-editor/v1' | '';

/**
 * Who may call an endpoint: anyone (`public`, anonymous callers included), any signed-in user about itself
 * (`self`), a user who may read the team acted on, one who may change it, its account's owner, or a platform
 * operator (`operator`: the admin routes). What a role allows is the strategy's to say.
 */
export type Permission = 'public' | UserPermission;

/** Patterns of path variables: an opaque identifier segment, or digits. */
export const IDENTIFIER = '[A-Za-z0-9_-]+';
export const DIGITS = '\\d+';

/**
 * A body written as it is produced rather than JSON (a CSV export of any size): its Content-Type, and the
 * stream `open` makes when the answer is sent, read only as fast as the client takes it.
 */
export class StreamedBody {
  constructor(
    readonly contentType: string,
    readonly open: () => Readable,
  ) {}
}

/** What an endpoint answers: JSON (or a StreamedBody), with a status (200 by default) and headers of its own. */
export interface Reply<T = unknown> {
  status?: number;
  body: T;
  headers?: Record<string, string>;
}

/** What a handler is given: `params` is the one param set (URL variables, query and JSON body merged, defaults applied). */
export interface EndpointInput<P, U> {
  ctx: AppContext;
  /** The user, or undefined for an anonymous caller (only `public` endpoints run for one). */
  user: U | undefined;
  params: P;
  /** The request as run: headers, origin, path and raw query (for Link headers and the like). */
  request: Incoming;
  log: Logger;
}

/**
 * A body an endpoint reads itself, as a stream (a multipart upload): the dashboard does not read it as JSON and
 * hands the handler the unread request as `request.stream`. Its media type and schema are what the OpenAPI
 * document says of it. Such an endpoint cannot run in a batch (a batch item has no stream).
 */
export interface StreamedRequestBody {
  contentType: string;
  schema: TSchema;
}

interface EndpointShape<A extends TObject> {
  methods: readonly RestMethod[];
  /**
   * Every parameter the endpoint reads, wherever it is sent (URL variables included): `Type.Optional` for those
   * a client may leave out; one with a `default` is never missing (it is applied), so it need not be Optional.
   */
  args: A;
  permission: Permission;
  /** True when the endpoint may run as an item of POST /api/batch/v1 (`allow_batch: {v1: true}`). */
  allowBatch?: boolean;
  /** Set on the few endpoints a session may call while the user's password must change (the core's rule). */
  passwordChangeStep?: PasswordChangeStep;
  /** Set when the endpoint reads its body itself, from `request.stream`; `args` then come from the URL and query only. */
  streamedBody?: StreamedRequestBody;
  /**
   * The account's write bucket the call counts against (the one /v2 counts against too); by default every
   * signed-in change (any method but GET) counts against `writes`, and reads count against nothing (null).
   */
  rate?: WriteBucket | null;
  summary: string;
}

export interface EndpointDef<A extends TObject, U> extends EndpointShape<A> {
  handle(input: EndpointInput<Static<A>, U>): Promise<Reply>;
}

/** An endpoint with its types erased, as the router, the index and the OpenAPI generator see it. */
export interface AnyEndpoint<U> extends EndpointShape<TObject> {
  handle(input: EndpointInput<Record<string, unknown>, U>): Promise<Reply>;
}

export interface DashboardRoute<U> {
  namespace: Namespace;
  /** Relative to the namespace, `{name}` for variables: `/domains/{domain_hash}`; '' for the namespace itself. */
  path: string;
  /** The pattern of each variable of the path (IDENTIFIER, DIGITS). */
  vars?: Readonly<Record<string, string>>;
  endpoints: ReadonlyArray<AnyEndpoint<U>>;
}

/** One endpoint, its args' static type flowing to its handler. */
export function endpoint<A extends TObject, U>(def: EndpointDef<A, U>): AnyEndpoint<U> {
  return def;
}

/** The route's full path under /api, `{name}` for variables: `/tern/v2/domains/{domain_hash}`. */
export const routePath = (route: Pick<DashboardRoute<unknown>, 'namespace' | 'path'>): string =>
  route.namespace ? `/${route.namespace}${route.path}` : route.path || '/';

/** The write bucket an endpoint's calls count against, if any (see EndpointShape.rate). */
export function rateOf(endpoint: { methods: readonly RestMethod[]; permission: Permission; rate?: WriteBucket | null }, method: string): WriteBucket | null {
  if (endpoint.rate !== undefined) return endpoint.rate;
  return endpoint.permission !== 'public' && method !== 'GET' ? 'writes' : null;
}
