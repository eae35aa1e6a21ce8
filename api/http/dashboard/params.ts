// The dashboard's one param set, as WordPress's WP_REST_Request builds and checks it: URL variables, the
// query and a JSON body merged; every required arg present (else rest_missing_callback_param naming all the
// missing ones), every present arg valid (else rest_invalid_param with data.params and data.details, one
// entry per invalid arg, worded with WordPress's messages), then defaults applied. Only declared args reach
// the handler. The checking itself is api/pipeline/validate.ts's; this file only merges and words.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { check, type InputProblem } from '../../pipeline/validate.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { DashboardError, dashboardError, MESSAGES } from '../../pipeline/dashboard-errors.js';

export type Params = Record<string, unknown>;
export type ParamsChecked = { ok: true; params: Params } | { ok: false; error: DashboardError };

/** The detail WordPress gives per invalid arg: its own code, message and data (null when it has none). */
export interface ParamDetail {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * URL variables, query and body in one set. The body beats the query (WordPress's order); the URL's own
 * variables beat both, so a body field cannot retarget a request at another resource (WordPress lets it).
 */
export function mergedParams(req: Incoming): Params | DashboardError {
  if (req.body !== undefined && !isObject(req.body)) {
    return dashboardError('rest_invalid_json', MESSAGES.rest_invalid_json, { json_error_message: 'The body must be a JSON object' });
  }
  return { ...(req.phpQuery ?? req.query), ...(req.body ?? {}), ...req.params };
}

// ---- WordPress's wording of a schema problem (rest_validate_value_from_schema) ----

/** wp_sprintf's %l: "a", "a and b", "a, b, and c". */
function list(values: readonly unknown[]): string {
  const text = values.map((v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)));
  if (text.length <= 2) return text.join(' and ');
  return `${text.slice(0, -1).join(', ')}, and ${text.at(-1)}`;
}

const plural = (n: unknown, one: string, many: string): string => (Number(n) === 1 ? one : many);

function boundsMessage(name: string, schema: Readonly<Record<string, unknown>>): string {
  const bound = (exclusive: unknown, inclusive: unknown) =>
    typeof exclusive === 'number' ? { v: exclusive, ex: true } : typeof inclusive === 'number' ? { v: inclusive, ex: false } : undefined;
  const lo = bound(schema.exclusiveMinimum, schema.minimum);
  const hi = bound(schema.exclusiveMaximum, schema.maximum);
  const kind = (ex: boolean) => (ex ? 'exclusive' : 'inclusive');
  if (lo && hi) return `${name} must be between ${lo.v} (${kind(lo.ex)}) and ${hi.v} (${kind(hi.ex)})`;
  if (lo) return lo.ex ? `${name} must be greater than ${lo.v}` : `${name} must be greater than or equal to ${lo.v}`;
  return hi!.ex ? `${name} must be less than ${hi!.v}` : `${name} must be less than or equal to ${hi!.v}`;
}

const FORMATS: Readonly<Record<string, (name: string) => [code: string, message: string]>> = {
  email: () => ['rest_invalid_email', 'Invalid email address.'],
  'date-time': () => ['rest_invalid_date', 'Invalid date.'],
  date: () => ['rest_invalid_date', 'Invalid date.'],
  uuid: (name) => ['rest_invalid_uuid', `${name} is not a valid UUID.`],
  ipv4: (name) => ['rest_invalid_ip', `${name} is not a valid IP address.`],
  ipv6: (name) => ['rest_invalid_ip', `${name} is not a valid IP address.`],
};

/** The failing value's name as WordPress writes it: `requests[0][path]`. */
const nameOf = (arg: string, path: readonly string[]): string => arg + path.map((s) => `[${s}]`).join('');

function wordingOf(name: string, p: InputProblem): [code: string, message: string] {
  const n = (k: string) => p.params[k];
  switch (p.keyword) {
    case 'type':
      return ['rest_invalid_type', `${name} is not of type ${Array.isArray(n('type')) ? (n('type') as string[]).join(',') : String(n('type'))}.`];
    case 'enum':
    case 'const': {
      const values = p.keyword === 'enum' ? (n('allowedValues') as unknown[]) : [n('allowedValue')];
      return ['rest_not_in_enum', values.length === 1 ? `${name} is not ${list(values)}.` : `${name} is not one of ${list(values)}.`];
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return ['rest_out_of_bounds', boundsMessage(name, p.schema)];
    case 'multipleOf':
      return ['rest_invalid_multiple', `${name} must be a multiple of ${String(n('multipleOf'))}.`];
    case 'minLength':
      return ['rest_too_short', `${name} must be at least ${String(n('limit'))} ${plural(n('limit'), 'character', 'characters')} long.`];
    case 'maxLength':
      return ['rest_too_long', `${name} must be at most ${String(n('limit'))} ${plural(n('limit'), 'character', 'characters')} long.`];
    case 'pattern':
      return ['rest_invalid_pattern', `${name} does not match pattern ${String(n('pattern'))}.`];
    case 'minItems':
      return ['rest_too_few_items', `${name} must contain at least ${String(n('limit'))} ${plural(n('limit'), 'item', 'items')}.`];
    case 'maxItems':
      return ['rest_too_many_items', `${name} must contain at most ${String(n('limit'))} ${plural(n('limit'), 'item', 'items')}.`];
    case 'uniqueItems':
      return ['rest_duplicate_items', `${name} has duplicate items.`];
    case 'minProperties':
      return ['rest_too_few_properties', `${name} must contain at least ${String(n('limit'))} ${plural(n('limit'), 'property', 'properties')}.`];
    case 'maxProperties':
      return ['rest_too_many_properties', `${name} must contain at most ${String(n('limit'))} ${plural(n('limit'), 'property', 'properties')}.`];
    case 'format':
      return FORMATS[String(n('format'))]?.(name) ?? ['rest_invalid_param', `${name} is not a valid ${String(n('format'))}.`];
    default:
      return ['rest_invalid_param', 'Invalid parameter.'];
  }
}

/** One arg's problem as WordPress details it. */
export function detailOf(arg: string, p: InputProblem): ParamDetail {
  // The wrapper's key ('value') is the arg itself: drop it.
  const path = p.path.slice(1);
  if (p.missing) {
    const owner = nameOf(arg, path.slice(0, -1));
    return { code: 'rest_property_required', message: `${path.at(-1)!} is a required property of ${owner}.`, data: null };
  }
  const name = nameOf(arg, path);
  if (p.keyword === 'additionalProperties') {
    return { code: 'rest_additional_properties_forbidden', message: `${path.at(-1)!} is not a valid property of Object.`, data: null };
  }
  if (p.alternatives) return { code: 'rest_no_matching_schema', message: `${name} does not match any of the expected formats.`, data: null };
  const [code, message] = wordingOf(name, p);
  return { code, message, data: code === 'rest_invalid_type' ? { param: name } : null };
}

// ---- checking the merged set against an endpoint's args ----

/** Each arg is checked alone (so every invalid arg is reported), inside an object so coercion can write back. */
const wrappers = new WeakMap<TSchema, TObject>();
function wrapperOf(schema: TSchema): TObject {
  let wrapper = wrappers.get(schema);
  if (!wrapper) {
    wrapper = Type.Object({ value: schema });
    wrappers.set(schema, wrapper);
  }
  return wrapper;
}

const absent = (v: unknown): boolean => v === undefined || v === null;

/**
 * Whether the JSON body sent `field` as null. Params read a null as not given (WordPress's rule); a route whose
 * field takes null for "none" (an icon, a tax id) asks the body itself.
 */
export const sentAsNull = (body: unknown, field: string): boolean => isObject(body) && field in body && body[field] === null;

/** The single JSON type a schema names, when it names exactly one. */
const typeOf = (schema: Readonly<Record<string, unknown>>): string | undefined => (typeof schema.type === 'string' ? schema.type : undefined);

/**
 * Where a JSON value has a type WordPress would refuse although Ajv's coercion would accept it: a number or a
 * boolean for a string (WordPress checks is_string, Ajv makes text of it) and a boolean for a number (not
 * is_numeric). Text stays coercible (the query is text, and WordPress takes "5" for an integer and "true"
 * for a boolean). Objects and arrays are walked; alternatives (anyOf) are left to the schema check.
 */
export function typeRefusedByWordPress(schema: Readonly<Record<string, unknown>>, value: unknown, path: string[] = ['value']): InputProblem | undefined {
  const type = typeOf(schema);
  const scalar = typeof value === 'number' || typeof value === 'boolean';
  const refused = (type === 'string' && scalar) || ((type === 'number' || type === 'integer') && typeof value === 'boolean');
  if (refused) return { path, keyword: 'type', missing: false, params: { type }, schema, text: `must be ${type}`, alternatives: false };
  if (type === 'object' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, sub] of Object.entries(properties)) {
      const inner = (value as Record<string, unknown>)[name];
      const problem = inner === undefined ? undefined : typeRefusedByWordPress(sub, inner, [...path, name]);
      if (problem) return problem;
    }
  }
  if (type === 'array' && Array.isArray(value) && typeof schema.items === 'object' && schema.items !== null && !Array.isArray(schema.items)) {
    for (const [i, item] of value.entries()) {
      const problem = typeRefusedByWordPress(schema.items as Record<string, unknown>, item, [...path, String(i)]);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** The args a client must send: required by the schema and without a default (a default is never missing). */
export function requiredArgs(args: TObject): Set<string> {
  return new Set((args.required ?? []).filter((name) => !('default' in (args.properties[name] ?? {}))));
}

function missingArgs(args: TObject, merged: Params): string[] {
  const required = requiredArgs(args);
  return Object.keys(args.properties).filter((name) => required.has(name) && absent(merged[name]));
}

/** An array arg sent as text is a list (wp_parse_list, as rest_sanitize_array reads it): "1,2" and "1 2" are [1, 2]. */
function listGiven(schema: Readonly<Record<string, unknown>>, value: unknown): unknown {
  if (typeOf(schema) !== 'array' || typeof value !== 'string') return value;
  return value.split(/[\s,]+/).filter((v) => v !== '');
}

/** Checks the merged set against the args: the handler's params, or the WordPress error. */
export function checkParams(args: TObject, merged: Params): ParamsChecked {
  const missing = missingArgs(args, merged);
  if (missing.length) {
    return { ok: false, error: dashboardError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, { params: missing }) };
  }
  const params: Params = {};
  const invalid: Record<string, string> = {};
  const details: Record<string, ParamDetail> = {};
  for (const [name, schema] of Object.entries(args.properties)) {
    const value = merged[name];
    if (absent(value)) {
      if ('default' in schema) params[name] = structuredClone(schema.default);
      continue;
    }
    const given = listGiven(schema, value);
    const wrongType = typeRefusedByWordPress(schema, given);
    const result = wrongType ? ({ ok: false, problem: wrongType } as const) : check<{ value: unknown }>(wrapperOf(schema), { value: given }, true);
    if (result.ok) {
      params[name] = result.value.value;
      continue;
    }
    details[name] = detailOf(name, result.problem);
    invalid[name] = details[name].message;
  }
  if (Object.keys(invalid).length) {
    const message = `Invalid parameter(s): ${Object.keys(invalid).join(', ')}`;
    return { ok: false, error: dashboardError('rest_invalid_param', message, { params: invalid, details }) };
  }
  return { ok: true, params };
}

/** The request's param set, checked against the endpoint's args. */
export function paramsOf(args: TObject, req: Incoming): ParamsChecked {
  const merged = mergedParams(req);
  if (merged instanceof DashboardError) return { ok: false, error: merged };
  return checkParams(args, merged);
}
