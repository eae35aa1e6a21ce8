// Request validation with Ajv, compiled once per schema. Bodies are checked strictly (no type coercion);
// query strings and path segments are text, so they are coerced to the schema's types.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { adminError, type AdminErrorCode } from '../shared/errors.js';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const strict = addFormats(new Ajv({ allErrors: false, strict: false }));
const coercing = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: true }));

const cache = new WeakMap<TSchema, ValidateFunction>();

function compile(schema: TSchema, coerce: boolean): ValidateFunction {
  const ajv = coerce ? coercing : strict;
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

function fieldOf(err: ErrorObject): string {
  const path = err.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (err.keyword === 'required') return [path, (err.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
  if (err.keyword === 'additionalProperties') {
    return [path, (err.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
  }
  return path;
}

function describe(err: ErrorObject, where: string): string {
  const field = fieldOf(err);
  if (err.keyword === 'required') return `${field} is required`;
  if (err.keyword === 'additionalProperties') return `${field} is not a known field`;
  if (!field) return `The ${where} ${err.message ?? 'is invalid'}`;
  return `${field} ${err.message ?? 'is invalid'}`;
}

/** Validates and returns the value, or throws a 422 naming the first wrong field. */
export function validate<T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'path', codes: Readonly<Record<string, AdminErrorCode>> = {}): T {
  const input = value === undefined && where !== 'body' ? {} : value;
  const fn = compile(schema, where !== 'body');
  if (fn(input)) return input as T;
  const err = fn.errors![0]!;
  if (where === 'body' && value === undefined) {
    throw adminError('validation_failed', 'A JSON request body is required', { field: 'body' });
  }
  const field = fieldOf(err) || where;
  // A route may give some fields their own code (an unsupported webhook event, an invalid url).
  // Own keys only: a field named __proto__ or constructor must not pick up Object.prototype's members.
  const top = field.split('.')[0]!;
  const code = Object.hasOwn(codes, top) ? codes[top]! : 'validation_failed';
  throw adminError(code, describe(err, where), { field });
}
