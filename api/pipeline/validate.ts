// Request validation with Ajv, compiled once per schema, and interface-neutral: it answers a value saying
// what is wrong (where, which keyword, a required field missing or a value invalid), and each interface
// words it in its own shape (/v2: http/admin/validation-errors.ts; the dashboard: http/dashboard/params.ts).
// Bodies are checked strictly (no type coercion); query strings and path segments are text, so coerced.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// verbose: each error carries the schema it failed on, which wording needs (a range's two bounds).
const strict = addFormats(new Ajv({ allErrors: false, strict: false, verbose: true }));
const coercing = addFormats(new Ajv({ allErrors: false, strict: false, verbose: true, coerceTypes: true }));

const caches = { strict: new WeakMap<TSchema, ValidateFunction>(), coercing: new WeakMap<TSchema, ValidateFunction>() };

function compile(schema: TSchema, coerce: boolean): ValidateFunction {
  const cache = coerce ? caches.coercing : caches.strict;
  let fn = cache.get(schema);
  if (!fn) {
    fn = (coerce ? coercing : strict).compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** The part of a /v2 request a schema checks. */
export type InputPart = 'body' | 'query' | 'path';

/** What is wrong with a value, described, not worded. */
export interface InputProblem {
  /** Where the offending value sits inside the checked one: property names and array indexes, [] for the root. */
  readonly path: readonly string[];
  /** The JSON Schema keyword that failed: required, type, enum, minimum, pattern, format, … */
  readonly keyword: string;
  /** True when a required property is absent (path ends with its name), false when a value is invalid. */
  readonly missing: boolean;
  /** The keyword's own parameters (limit, allowedValues, type, format, pattern, …). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The (sub)schema the keyword belongs to, for bounds and enums worded whole. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Ajv's own text for it ("must be integer"), which /v2 answers with. */
  readonly text: string;
  /** True when the failing value had alternatives (anyOf/oneOf) and matched none of them. */
  readonly alternatives: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: InputProblem };

// The pointer's segments as Ajv writes them (not unescaped: /v2 has always named fields this way).
const segments = (pointer: string): string[] => (pointer ? pointer.slice(1).split('/') : []);

function problemOf(err: ErrorObject, all: readonly ErrorObject[]): InputProblem {
  const path = segments(err.instancePath);
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') path.push(String(params.missingProperty));
  if (err.keyword === 'additionalProperties') path.push(String(params.additionalProperty));
  return {
    path,
    keyword: err.keyword,
    missing: err.keyword === 'required',
    params,
    schema: err.parentSchema ?? {},
    text: err.message ?? 'is invalid',
    alternatives: all.some((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && err.instancePath.startsWith(e.instancePath)),
  };
}

/**
 * Checks a value against a schema: the value (coerced to the schema's types when `coerce`, in place, as Ajv
 * does) or the first problem found.
 */
export function check<T>(schema: TSchema, value: unknown, coerce: boolean): Checked<T> {
  const fn = compile(schema, coerce);
  if (fn(value)) return { ok: true, value: value as T };
  const errors = fn.errors ?? [];
  return { ok: false, problem: problemOf(errors[0]!, errors) };
}
