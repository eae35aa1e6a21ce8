// The OpenAPI 3.1 document, generated from the route definitions (the same schemas validate requests).
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Config } from '../../shared/config.js';
import { AdminErrorBody } from './schemas/common.js';
import type { AnyRoute } from '../pipeline/route.js';

type Json = Record<string, unknown>;

/** A plain JSON copy of a TypeBox schema (its symbol keys and $id dropped). */
function plain(schema: TSchema): Json {
  const copy = JSON.parse(JSON.stringify(schema)) as Json;
  delete copy.$id;
  return copy;
}

function parametersOf(route: AnyRoute): Json[] {
  const params: Json[] = [];
  const add = (where: 'path' | 'query', object: TObject | undefined) => {
    if (!object) return;
    const required = new Set(object.required ?? []);
    for (const [name, schema] of Object.entries(object.properties)) {
      params.push({ name, in: where, required: where === 'path' || required.has(name), schema: plain(schema) });
    }
  };
  add('path', route.params);
  add('query', route.query);
  if (!route.forbidsTeamHeader) {
    params.push({
      name: 'X-Account-Id',
      in: 'header',
      required: false,
      description: route.ignoresTeamHeader ? 'Ignored: the response always describes the account owning the key' : 'The team to act on; omitted, the key’s own account',
      schema: { type: 'integer', minimum: 1 },
    });
  }
  return params;
}

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/AdminError' } } },
});

function responsesOf(route: AnyRoute): Json {
  const responses: Json = {
    401: errorResponse('No admin key, a sending key, or an invalid or revoked key'),
    404: errorResponse('Not found (also a team outside the key’s reach in X-Account-Id)'),
    422: errorResponse('Validation failed'),
  };
  // Every route reads a body when one is sent; those that take one document the body failures too.
  if (route.body) {
    responses[400] = errorResponse('The body is not valid JSON');
    responses[413] = errorResponse('The body is larger than the limit (1 MB)');
    responses[415] = errorResponse('The body is not JSON (Content-Type)');
  }
  if (route.forbidsTeamHeader) responses[400] = errorResponse('The body is not valid JSON, or X-Account-Id was sent');
  if (route.scopes.length) responses[403] = errorResponse(`Outside the key’s scopes (needs ${route.scopes.join(' and ')})`);
  if (route.rate) responses[429] = errorResponse('Rate limit exceeded; see Retry-After and RateLimit-* headers');
  for (const [status, doc] of Object.entries(route.responses)) {
    responses[status] = doc.schema ? { description: doc.description, content: { 'application/json': { schema: plain(doc.schema) } } } : errorResponse(doc.description);
  }
  return responses;
}

const operationId = (route: AnyRoute): string =>
  route.method.toLowerCase() +
  route.path
    .replace(/^\/v2/, '')
    .split(/[/-]/)
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `By${part[1]!.toUpperCase()}${part.slice(2, -1)}` : part[0]!.toUpperCase() + part.slice(1)))
    .join('');

function operationOf(route: AnyRoute): Json {
  const operation: Json = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    security: [{ adminKey: [] }],
    'x-required-scopes': [...route.scopes],
    parameters: parametersOf(route),
    responses: responsesOf(route),
  };
  if (route.body) {
    operation.requestBody = { required: !route.bodyOptional, content: { 'application/json': { schema: plain(route.body) } } };
  }
  return operation;
}

export function openApiDocument(routes: readonly AnyRoute[], config: Config): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tern sending and account-management API',
      version: '2',
      description: 'Admin endpoints take an admin key (tern_admin_…) as Authorization: Bearer.',
    },
    servers: [{ url: `http://${config.api.host}:${config.api.port}` }],
    paths,
    components: {
      securitySchemes: { adminKey: { type: 'http', scheme: 'bearer', description: 'An admin key, tern_admin_…' } },
      schemas: { AdminError: plain(AdminErrorBody) },
    },
  };
}
