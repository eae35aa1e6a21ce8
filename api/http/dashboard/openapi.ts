// The dashboard's OpenAPI paths, generated from the same route definitions that route, validate and build
// the REST index: each endpoint's args become path parameters (URL variables), query parameters (GET and
// DELETE) or a JSON request body (POST, PUT, PATCH), or the body an endpoint streams (an upload) as it
// declares it; every error is WordPress's {code, message, data}.
import { Type } from '@sinclair/typebox';
import { rateOf, routePath, type AnyEndpoint, type DashboardRoute, type RestMethod } from './route.js';
import { requiredArgs } from './params.js';

type Json = Record<string, unknown>;

export const WordPressErrorBody = Type.Object({
  code: Type.String(),
  message: Type.String(),
  data: Type.Object({ status: Type.Integer() }, { additionalProperties: true }),
});

const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;

const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: plain(WordPressErrorBody) } } });

/** How a dashboard caller proves who they are: a session cookie with its nonce, or an application password. */
export const dashboardSecuritySchemes = {
  dashboardSession: { type: 'apiKey', in: 'cookie', name: 'tern_session', description: 'Set by POST /api/tern-auth/v1/login; needs the nonce too.' },
  dashboardNonce: { type: 'apiKey', in: 'header', name: 'X-WP-Nonce', description: 'The nonce the login answered (or _wpnonce in the query).' },
  applicationPassword: { type: 'http', scheme: 'basic', description: 'email:application password (WordPress application passwords); no nonce.' },
} as const;

const DASHBOARD_SECURITY = [{ dashboardSession: [], dashboardNonce: [] }, { applicationPassword: [] }];

const variablesOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** What a signed-in endpoint answers with 403; all but the steps to it refuse a session whose password must change. */
const forbiddenCodes = (e: AnyEndpoint<unknown>): string =>
  e.passwordChangeStep
    ? 'rest_forbidden, rest_cookie_invalid_nonce'
    : 'rest_forbidden, rest_cookie_invalid_nonce, tern_password_change_required (change the one-time password first)';

function operationOf(path: string, method: RestMethod, e: AnyEndpoint<unknown>): Json {
  const vars = new Set(variablesOf(path));
  const required = requiredArgs(e.args);
  const inBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const parameters: Json[] = [];
  const body: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(e.args.properties)) {
    if (vars.has(name)) parameters.push({ name, in: 'path', required: true, schema: plain(schema) });
    else if (inBody && !e.streamedBody) body[name] = plain(schema);
    else parameters.push({ name, in: 'query', required: required.has(name), schema: plain(schema) });
  }
  for (const name of vars) if (!parameters.some((p) => p.name === name)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  const operation: Json = {
    summary: e.summary,
    tags: ['dashboard'],
    'x-permission': e.permission,
    security: e.permission === 'public' ? [] : DASHBOARD_SECURITY,
    parameters,
    responses: {
      200: { description: 'Success' },
      400: errorResponse('rest_invalid_param, rest_missing_callback_param or rest_invalid_json'),
      404: errorResponse('rest_no_route'),
      ...(e.permission === 'public' ? {} : { 401: errorResponse('rest_forbidden: not logged in'), 403: errorResponse(forbiddenCodes(e)) }),
      ...(rateOf(e, method) ? { 429: errorResponse("rest_too_many_requests: past the account's changes per minute (shared with /v2)") } : {}),
    },
  };
  if (e.allowBatch) operation['x-allow-batch'] = { v1: true };
  if (e.streamedBody) {
    operation.requestBody = { required: true, content: { [e.streamedBody.contentType]: { schema: plain(e.streamedBody.schema) } } };
  } else if (inBody && Object.keys(body).length) {
    const schema = { type: 'object', properties: body, required: Object.keys(body).filter((n) => required.has(n)) };
    operation.requestBody = { required: schema.required.length > 0, content: { 'application/json': { schema } } };
  }
  return operation;
}

/** The OpenAPI `paths` of the dashboard's routes, under /api. */
export function dashboardPaths(routes: ReadonlyArray<DashboardRoute<unknown>>): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = `/api${routePath(route)}`;
    for (const e of route.endpoints) for (const method of e.methods) (paths[path] ??= {})[method.toLowerCase()] = operationOf(path, method, e);
  }
  return paths;
}
