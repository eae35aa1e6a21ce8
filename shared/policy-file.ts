// The one loader of policy files (config/*.json and the operator's ternmail.json): JSON objects merged in
// layers, overridden by TERNMAIL_* variables, validated against a TypeBox schema with Ajv, every problem
// reported in one ConfigError naming the files and each wrong setting, and the result deep-frozen.
import { readFileSync } from 'node:fs';
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    message: string,
    /** Each wrong setting, by name, as the message lists them (none when a file could not be read at all). */
    readonly problems: readonly string[] = [],
    /** Where the settings came from: the files, and "the environment" when a variable set one. */
    readonly sources = '',
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a variable's text as its setting's type; text that does not parse is kept, so validation names it. */
export type EnvParser = (text: string) => unknown;

const asInt: EnvParser = (v) => (/^\d+$/.test(v.trim()) ? Number(v) : v);
/** Items are trimmed but never dropped: "60,,300" is refused, not read as "60,300". */
const asList: EnvParser = (v) => v.split(',').map((s) => s.trim());

export const envText = {
  string: (v: string): unknown => v,
  int: asInt,
  number: (v: string): unknown => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  list: asList,
  intList: (v: string): unknown => (asList(v) as string[]).map((s) => asInt(s)),
  /** true/false (also 1/0, yes/no, on/off); anything else is left as text so validation reports it. */
  bool: (v: string): unknown => {
    const t = v.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(t)) return true;
    if (['0', 'false', 'no', 'off'].includes(t)) return false;
    return v;
  },
} satisfies Record<string, EnvParser>;

/** A variable, the setting it overrides (its path of keys) and how its text is read. */
export type EnvSetting = readonly [variable: string, path: readonly string[], parse: EnvParser];

export interface PolicySpec<S extends TSchema, R> {
  /** What the files hold, as messages say it: "configuration", "retry policy", "SMTP reply rules". */
  what: string;
  schema: S;
  /** Read in order, each merged over the ones before (objects key by key, anything else replaced). */
  files: readonly string[];
  /** Values merged over the files, before the environment (tests and the CLI). */
  overrides?: Json;
  /** Variables that override settings; an empty or blank variable counts as unset. */
  envSettings?: readonly EnvSetting[];
  env?: NodeJS.ProcessEnv;
  /** Checks the schema cannot express; `named(key)` is `VARIABLE (key)` for a setting the environment gave. */
  check?: (value: Static<S>, named: (key: string) => string) => string[];
  /** Makes the result from the validated value; the result is deep-frozen. */
  build: (value: Static<S>) => R;
}

function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k], v) : v;
  return out;
}

function readJsonObject(file: string, what: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read ${what} file ${file}: ${(err as Error).message}`);
  }
  if (!isObject(parsed)) throw new ConfigError(`cannot read ${what} file ${file}: not a JSON object`);
  return parsed;
}

type EnvSources = Map<string, { variable: string; text: string }>;

function setPath(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Json;
  node[path[path.length - 1]!] = value;
}

/** Sets each variable's setting in `raw`; returns which variable set which setting, for messages. */
function applyEnv(raw: Json, settings: readonly EnvSetting[], env: NodeJS.ProcessEnv): EnvSources {
  const sources: EnvSources = new Map();
  for (const [variable, path, parse] of settings) {
    const text = env[variable];
    if (text === undefined || text.trim() === '') continue;
    setPath(raw, path, parse(text));
    sources.set(path.join('.'), { variable, text });
  }
  return sources;
}

/** `smtp.starttlsPorts[0]`, `rules[3] "gmail-spam".match.code`: array items by index, and by id when they have one. */
function pathName(keys: readonly string[], root: unknown): string {
  let name = '';
  let node = root;
  for (const key of keys) {
    if (Array.isArray(node)) {
      const item: unknown = node[Number(key)];
      name += `[${key}]${isObject(item) && typeof item.id === 'string' ? ` "${item.id}"` : ''}`;
      node = item;
    } else {
      name += name ? `.${key}` : key;
      node = isObject(node) ? node[key] : undefined;
    }
  }
  return name || '(top level)';
}

/** A setting as messages name it: the variable that set it, with its text, or else its path in the file. */
function settingName(keys: readonly string[], raw: Json, fromEnv: EnvSources): string {
  for (let n = keys.length; n > 0; n--) {
    const source = fromEnv.get(keys.slice(0, n).join('.'));
    if (source) return `${source.variable}=${JSON.stringify(source.text)}`;
  }
  return pathName(keys, raw);
}

const within = (inner: ErrorObject, outer: ErrorObject) => inner.instancePath === outer.instancePath || inner.instancePath.startsWith(`${outer.instancePath}/`);

/**
 * Ajv reports every failed branch of a union; keep what is wrong with the value actually given. The anyOf
 * summary goes, and so does a branch's type error when an error at or below that value says more (for an
 * empty list where a list or null is allowed, "must NOT have fewer than 1 items", not also "must be null").
 */
function tellingErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const useful = errors.filter((e) => e.keyword !== 'anyOf');
  const superseded = (e: ErrorObject) => e.keyword === 'type' && useful.some((o) => o.keyword !== 'type' && within(o, e));
  return useful.filter((e) => !superseded(e));
}

/** What one error says about its value; the type errors of a union's branches are said together. */
function complaint(e: ErrorObject, all: readonly ErrorObject[]): string {
  if (e.keyword === 'enum') return `${e.message ?? 'is invalid'} (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`;
  if (e.keyword !== 'type') return e.message ?? 'is invalid';
  const types = all.filter((o) => o.keyword === 'type' && o.instancePath === e.instancePath).map((o) => (o.params as { type: string }).type);
  return `must be ${types.join(' or ')}`;
}

/** One line per wrong setting: unknown and missing keys by name, enums with their allowed values. */
function schemaProblems(errors: readonly ErrorObject[], name: (keys: string[]) => string): string[] {
  const telling = tellingErrors(errors);
  const lines = telling.map((e) => {
    const keys = e.instancePath
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const params = e.params as { additionalProperty?: string; missingProperty?: string };
    if (e.keyword === 'additionalProperties') return `unknown setting ${name([...keys, params.additionalProperty!])}`;
    if (e.keyword === 'required') return `missing setting ${name([...keys, params.missingProperty!])}`;
    return `${name(keys)}: ${complaint(e, telling)}`;
  });
  return [...new Set(lines)];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// One Ajv for every policy schema: it caches each compiled schema by identity, so a reload compiles nothing.
const ajv = new Ajv({ allErrors: true });

/** Reads, merges, overrides, validates, builds and freezes; throws one ConfigError listing every problem. */
export function loadPolicy<S extends TSchema, R>(spec: PolicySpec<S, R>): R {
  let raw = spec.files.reduce<Json>((merged, file) => merge(merged, readJsonObject(file, spec.what)), {});
  if (spec.overrides) raw = merge(raw, structuredClone(spec.overrides));
  const fromEnv = applyEnv(raw, spec.envSettings ?? [], spec.env ?? process.env);
  // The message names every source of the settings; each problem names the setting or the variable.
  const sources = [...spec.files, ...(fromEnv.size > 0 ? ['the environment'] : [])].join(' + ');
  const fail = (problems: string[]) => new ConfigError(`invalid ${spec.what} in ${sources}: ${problems.join('; ')}`, problems, sources);
  const validate = ajv.compile<Static<S>>(spec.schema);
  if (!validate(raw)) throw fail(schemaProblems(validate.errors ?? [], (keys) => settingName(keys, raw, fromEnv)));
  const named = (key: string) => {
    const source = fromEnv.get(key);
    return source ? `${source.variable} (${key})` : key;
  };
  const problems = spec.check?.(raw, named) ?? [];
  if (problems.length > 0) throw fail(problems);
  return deepFreeze(spec.build(raw));
}
