// POST /api/batch/v1, as WordPress's serve_batch_request_v1: 1 to 25 requests, each (method POST, PUT, PATCH
// or DELETE; a path relative to /api, with its query; a body; headers) matched by the same router, refused
// when its endpoint does not allow batching, checked, then run in order through the same pipeline with the
// batch's own caller; 207 with a {body, status, headers} per item. With `require-all-validate`, one invalid
// item and nothing runs: 207 {failed: "validation", responses: [null or the item's error]}.
import { Type, type Static } from '@sinclair/typebox';
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer, Incoming } from '../../pipeline/pipeline.js';
import { oneOf } from './collection.js';
import { dashboardError, MESSAGES, noRoute, type DashboardError } from '../../pipeline/dashboard-errors.js';
import type { Dispatcher } from './group.js';
import type { Match } from './router.js';
import { endpoint, type DashboardRoute, type Reply } from './route.js';

/** WordPress's default (rest_get_max_batch_size). */
export const MAX_BATCH_REQUESTS = 25;

const BatchItem = Type.Object({
  method: Type.Optional(oneOf(['POST', 'PUT', 'PATCH', 'DELETE'], { default: 'POST' })),
  path: Type.String(),
  body: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', properties: {}, additionalProperties: true })),
  headers: Type.Optional(
    Type.Unsafe<Record<string, string | string[]>>({ type: 'object', properties: {}, additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } }),
  ),
});

export const BatchArgs = Type.Object({
  validation: Type.Optional(oneOf(['require-all-validate', 'normal'], { default: 'normal' })),
  requests: Type.Array(BatchItem, { minItems: 1, maxItems: MAX_BATCH_REQUESTS }),
});

type Item = Static<typeof BatchItem>;

/** One item's envelope, as WordPress's envelope_response. */
interface Envelope {
  body: unknown;
  status: number;
  headers: Record<string, string>;
}

const envelopeOf = (a: Answer): Envelope => ({ body: a.body, status: a.status, headers: a.headers });
const errorEnvelope = (e: DashboardError): Envelope => ({ body: e.body(), status: e.status, headers: { ...e.headers } });

/** The item's own headers, as a request's: names in lower case, repeated values joined. */
function headersOf(item: Item): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(item.headers ?? {})) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

interface Ready<U> {
  match: Match<U>;
  req: Incoming;
}

/** An item parsed, matched and checked: ready to run, or the error it answers with. */
function prepare<U>(dispatch: Dispatcher<U>, item: Item, batch: Pick<Incoming, 'origin' | 'address'>): Ready<U> | DashboardError {
  let url: URL;
  try {
    url = new URL(item.path, 'http://local');
  } catch {
    return dashboardError('parse_path_failed', MESSAGES.parse_path_failed);
  }
  const method = item.method ?? 'POST';
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const match = dispatch.match(method, path);
  if (!match) return noRoute();
  if (!match.endpoint.allowBatch) return dashboardError('rest_batch_not_allowed', MESSAGES.rest_batch_not_allowed);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const req: Incoming = { method, path, params: match.params, query, headers: headersOf(item), body: item.body, origin: batch.origin, address: batch.address };
  const checked = dispatch.check(match, req);
  return checked.ok ? { match, req } : checked.error;
}

/** The batch route: at the root (namespace ''), as WordPress registers /batch/v1. */
export function batchRoute<U>(dispatch: Dispatcher<U>): DashboardRoute<U> {
  return {
    namespace: '',
    path: '/batch/v1',
    endpoints: [
      endpoint({
        methods: ['POST'],
        args: BatchArgs,
        permission: 'public',
        summary: 'Runs up to 25 requests in one, as WordPress batch/v1',
        async handle({ ctx, user, params, request, log }): Promise<Reply> {
          const prepared = params.requests.map((item) => prepare(dispatch, item, request));
          const isError = (p: Ready<U> | DashboardError): p is DashboardError => !('match' in p);
          if (params.validation === 'require-all-validate' && prepared.some(isError)) {
            return { status: 207, body: { failed: 'validation', responses: prepared.map((p) => (isError(p) ? errorEnvelope(p) : null)) } };
          }
          const responses: Envelope[] = [];
          // In order, one after the other: a later item may depend on what an earlier one did.
          for (const p of prepared) responses.push(isError(p) ? errorEnvelope(p) : envelopeOf(await dispatch.runAs(ctx, user, p.match, p.req, log)));
          return { status: 207, body: { responses } };
        },
      }),
    ],
  };
}
