// Configuration: defaults from config/defaults.json, then /etc/ternmail/ternmail.json (or the file named by
// TERNMAIL_CONFIG), then TERNMAIL_* environment variables. Loaded, validated and frozen once.
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { projectPath } from './paths.js';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Positive = Type.Integer({ minimum: 1 });

const ConfigSchema = Type.Object({
  dataDir: Type.String({ minLength: 1 }),
  redisUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  publicHostname: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  dnsServers: Type.Array(Type.String({ minLength: 1 })),
  api: Type.Object({ host: Type.String(), port: Type.Integer({ minimum: 0, maximum: 65535 }), bodyLimitBytes: Positive }),
  smtp: Type.Object({
    starttlsPorts: Type.Union([Type.Array(Port), Type.Null()]),
    tlsPorts: Type.Union([Type.Array(Port), Type.Null()]),
    mxPort: Type.Union([Port, Type.Null()]),
  }),
  tls: Type.Object({ cert: Type.Union([Type.String(), Type.Null()]), key: Type.Union([Type.String(), Type.Null()]) }),
  verify: Type.Object({ intervalS: Type.Number({ exclusiveMinimum: 0 }), maxDraftAgeDays: Positive, lockTtlS: Positive }),
  webhooks: Type.Object({ allowPrivate: Type.Boolean() }),
  keys: Type.Object({ cacheTtlS: Type.Integer({ minimum: 0, maximum: 60 }) }),
  dkim: Type.Object({ selector: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), keyBits: Type.Integer({ minimum: 1024 }) }),
  accounts: Type.Object({
    defaultPlan: Type.String(),
    defaultRegion: Type.String(),
    defaultLimitPerSecond: Positive,
    firstStartCredits: Type.Integer({ minimum: 0 }),
  }),
  regions: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  limits: Type.Object({
    teamsPerAccount: Positive,
    adminKeysPerAccount: Positive,
    webhooksPerTeam: Positive,
    suppressionRemovalsPerDay: Positive,
    domainCreatesPerMinute: Positive,
    writesPerMinute: Positive,
    pageSizeMax: Positive,
    pageSizeDefault: Positive,
    pagingDepth: Positive,
  }),
  log: Type.Object({ level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))) }),
});

type RawConfig = Static<typeof ConfigSchema>;

/** The configuration after defaults that depend on the machine (ports, host name) are filled in. */
export type Config = Readonly<
  Omit<RawConfig, 'smtp' | 'publicHostname'> & {
    publicHostname: string;
    smtp: { starttlsPorts: number[]; tlsPorts: number[]; mxPort: number };
  }
>;

type Parser = (value: string) => unknown;
const asInt: Parser = (v) => (/^\d+$/.test(v.trim()) ? Number(v) : v);
const asNumber: Parser = (v) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
const asList: Parser = (v) => v.split(',').map((s) => s.trim()).filter(Boolean);
const asIntList: Parser = (v) => (asList(v) as string[]).map((s) => asInt(s));
const asBool: Parser = (v) => ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
const asString: Parser = (v) => v;

/** Every environment variable the product reads, and the config path it overrides. */
const ENV_OVERRIDES: ReadonlyArray<[string, string[], Parser]> = [
  ['TERNMAIL_DATA_DIR', ['dataDir'], asString],
  ['TERNMAIL_REDIS_URL', ['redisUrl'], asString],
  ['TERNMAIL_PUBLIC_HOSTNAME', ['publicHostname'], asString],
  ['TERNMAIL_DNS_SERVERS', ['dnsServers'], asList],
  ['TERNMAIL_API_HOST', ['api', 'host'], asString],
  ['TERNMAIL_API_PORT', ['api', 'port'], asInt],
  ['TERNMAIL_SMTP_STARTTLS_PORTS', ['smtp', 'starttlsPorts'], asIntList],
  ['TERNMAIL_SMTP_TLS_PORTS', ['smtp', 'tlsPorts'], asIntList],
  ['TERNMAIL_MX_PORT', ['smtp', 'mxPort'], asInt],
  ['TERNMAIL_TLS_CERT', ['tls', 'cert'], asString],
  ['TERNMAIL_TLS_KEY', ['tls', 'key'], asString],
  ['TERNMAIL_VERIFY_INTERVAL_S', ['verify', 'intervalS'], asNumber],
  ['TERNMAIL_WEBHOOK_ALLOW_PRIVATE', ['webhooks', 'allowPrivate'], asBool],
  ['TERNMAIL_LOG_LEVEL', ['log', 'level'], asString],
];

export class ConfigError extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Json, v) : v;
  return out;
}

function setPath(target: Json, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Json;
  node[path[path.length - 1]!] = value;
}

function readJson(file: string): Json {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isObject(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Privileged ports are used only when this process may bind them (root or CAP_NET_BIND_SERVICE). */
function mayBindPrivileged(): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    return start <= 25;
  } catch {
    return false;
  }
}

function withMachineDefaults(raw: RawConfig): Config {
  const privileged = mayBindPrivileged();
  return {
    ...raw,
    dataDir: resolve(raw.dataDir),
    publicHostname: raw.publicHostname ?? hostname(),
    smtp: {
      starttlsPorts: raw.smtp.starttlsPorts ?? (privileged ? [587, 2587] : [2587]),
      tlsPorts: raw.smtp.tlsPorts ?? (privileged ? [465, 2465] : [2465]),
      mxPort: raw.smtp.mxPort ?? (privileged ? 25 : 2525),
    },
  };
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Values applied after the files and before the environment (tests and the CLI use it). */
  overrides?: Json;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  let raw = readJson(projectPath('config', 'defaults.json'));
  const file = env.TERNMAIL_CONFIG ?? '/etc/ternmail/ternmail.json';
  if (env.TERNMAIL_CONFIG !== undefined || existsSync(file)) raw = merge(raw, readJson(file));
  if (options.overrides) raw = merge(raw, options.overrides);
  for (const [name, path, parse] of ENV_OVERRIDES) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(raw, path, parse(value));
  }
  const validate = new Ajv({ allErrors: true }).compile<RawConfig>(ConfigSchema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  if (!raw.regions.includes(raw.accounts.defaultRegion)) {
    throw new ConfigError(`invalid configuration: accounts.defaultRegion "${raw.accounts.defaultRegion}" is not in regions`);
  }
  return deepFreeze(withMachineDefaults(raw));
}
