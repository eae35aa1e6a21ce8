// Rows become domain values here, checked against the columns' schema: what leaves the store is typed by a
// check, not by an assertion. A row that fails its check is a bug or a damaged database, never user input.
// Engine-neutral: both engines' repositories decode with these (store/sqlite/decode.ts, store/postgres/decode.ts).
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/** A row as a driver gives it: column name to value. */
export type Row = Record<string, unknown>;

export class StoreDecodeError extends Error {
  constructor(what: string, detail: string) {
    super(`${what}: a stored value does not decode: ${detail}`);
    this.name = 'StoreDecodeError';
  }
}

/** A checker compiled once per shape: checking a row then costs about as much as reading its fields. */
function checker<S extends TSchema>(what: string, schema: S): (value: unknown) => Static<S> {
  const compiled = TypeCompiler.Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return value;
    const first = compiled.Errors(value).First();
    throw new StoreDecodeError(what, first ? `${first.path || '(row)'} ${first.message}` : 'unexpected shape');
  };
}

/** The function that turns one row of `schema` into a domain value. */
export function rowDecoder<S extends TSchema, T>(what: string, schema: S, toValue: (row: Static<S>) => T): (row: Row) => T {
  const check = checker(what, schema);
  return (row) => toValue(check(row));
}

/** The function that reads a JSON text column holding a value of `schema`. */
export function jsonDecoder<S extends TSchema>(what: string, schema: S): (text: string) => Static<S> {
  const check = checker(what, schema);
  return (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new StoreDecodeError(what, (err as Error).message);
    }
    return check(value);
  };
}

/** One of a closed list of text values. */
export const OneOf = <V extends string>(values: readonly V[]): TUnion<Array<TLiteral<V>>> => Type.Union(values.map((v) => Type.Literal(v)));
export const Nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);
/** A boolean stored as an integer 0 or 1 (SQLite's; the PostgreSQL schema keeps the same 0/1 columns). */
export const Flag = Type.Union([Type.Literal(0), Type.Literal(1)]);
export const Int = Type.Integer();
export const Text = Type.String();

/** A COUNT(*) or other single number read as `n`. */
export const countOf = rowDecoder('count', Type.Object({ n: Int }), (r) => r.n);
