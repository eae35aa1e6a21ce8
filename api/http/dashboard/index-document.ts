// GET /api (the REST index) and GET /api/<namespace> (a namespace's index), built as WordPress's get_index,
// get_namespace_index and get_data_for_route build them, from the same route definitions that route and
// validate: each route keyed by its path with `{name}` variables, its namespace, methods and endpoints, each
// endpoint's args taken from the schema that validates them.
import type { TObject } from '@sinclair/typebox';
import { routePath, type DashboardRoute } from './route.js';
import { requiredArgs } from './params.js';

type Json = Record<string, unknown>;

/** The schema keywords WordPress shows of an arg (rest_get_allowed_schema_keywords). */
const SHOWN = new Set([
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
]);

/** An endpoint's args as the index lists them: the validating schema's shown keywords, and `required`. */
export function argsOf(args: TObject): Json {
  const required = requiredArgs(args);
  const out: Json = {};
  for (const [name, schema] of Object.entries(args.properties)) {
    // A JSON copy drops TypeBox's symbol keys (Optional, Kind).
    const plain = JSON.parse(JSON.stringify(schema)) as Json;
    const shown: Json = {};
    for (const [key, value] of Object.entries(plain)) if (SHOWN.has(key)) shown[key] = value;
    out[name] = { ...shown, required: required.has(name) };
  }
  return out;
}

/** Where the API's routes live for a client: `<origin>/api`. */
export const restUrl = (origin: string, path = '/'): string => `${origin}/api${path.startsWith('/') ? path : `/${path}`}`;

/** One route's data, as get_data_for_route: namespace, methods, endpoints and, without variables, a self link. */
export function routeData(route: DashboardRoute<unknown>, origin: string): Json {
  const path = routePath(route);
  const data: Json = {
    namespace: route.namespace,
    methods: route.endpoints.flatMap((e) => e.methods),
    endpoints: route.endpoints.map((e) => ({
      methods: [...e.methods],
      args: argsOf(e.args),
      ...(e.allowBatch ? { allow_batch: { v1: true } } : {}),
    })),
  };
  if (!path.includes('{')) data._links = { self: [{ href: restUrl(origin, path) }] };
  return data;
}

export function routesData(routes: ReadonlyArray<DashboardRoute<unknown>>, origin: string): Json {
  const out: Json = {};
  for (const route of routes) out[routePath(route)] = routeData(route, origin);
  return out;
}

/** The namespaces that have routes, in the order first registered. */
export const namespacesOf = (routes: ReadonlyArray<DashboardRoute<unknown>>): string[] => [...new Set(routes.map((r) => r.namespace).filter(Boolean))];

/** What the index says of the site: the dashboard is the API's own origin. */
export interface Site {
  name: string;
  description: string;
}

export function restIndex(site: Site, routes: ReadonlyArray<DashboardRoute<unknown>>, origin: string): Json {
  return {
    name: site.name,
    description: site.description,
    url: origin,
    home: origin,
    gmt_offset: 0,
    timezone_string: 'UTC',
    namespaces: namespacesOf(routes),
    authentication: {
      'application-passwords': { endpoints: { authorization: `${origin}/wp-admin/authorize-application.php` } },
    },
    routes: routesData(routes, origin),
  };
}

export function namespaceIndex(namespace: string, routes: ReadonlyArray<DashboardRoute<unknown>>, origin: string): Json {
  return {
    namespace,
    routes: routesData(
      routes.filter((r) => r.namespace === namespace),
      origin,
    ),
    _links: { up: [{ href: restUrl(origin, '/') }] },
  };
}
