// A running Tern for one test file: real Redis, a real SQLite file in a temp dir, the HTTP sidecar on a
// free loopback port, and helpers to make accounts, keys and requests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/log.js';
import { openRuntime, type Runtime } from '../../shared/runtime/runtime.js';
import { createAccount, createAdminKey } from '../../shared/core/accounts.js';
import { SCOPES, type Scope } from '../../shared/scopes.js';
import { startApi, type RunningApi } from '../../api/main.js';
import type { ApiOptions } from '../../api/server.js';
import type { UntypedJson } from '../harness/ternmail.js';
import { freePort, startRedis, type TestRedis } from './redis.js';
import { testEngineEnv } from '../harness/test-engine.js';

export type { UntypedJson };

export interface HttpReply<T = UntypedJson> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as-is (for malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The team to act on, sent as X-Account-Id (the header keeps its old name). */
  teamId?: number | string;
}

export interface RawRequestOptions {
  headers?: Record<string, string>;
  /** Sent with Content-Length; an array is sent as separate writes with chunked transfer encoding. */
  body?: string | Buffer | Array<string | Buffer>;
}

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: UntypedJson;
}

/** One request through node:http, for what fetch will not send (a GET with a body, a chunked body). */
export function rawRequest(baseUrl: string, method: string, path: string, o: RawRequestOptions = {}): Promise<RawReply> {
  const url = new URL(baseUrl);
  const headers: Record<string, string | number> = { ...o.headers };
  if (typeof o.body === 'string' || Buffer.isBuffer(o.body)) headers['content-length'] = Buffer.byteLength(o.body);
  if (Array.isArray(o.body)) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    for (const part of Array.isArray(o.body) ? o.body : o.body === undefined ? [] : [o.body]) req.write(part);
    req.end();
  });
}

export interface Harness {
  config: Config;
  rt: Runtime;
  redis: TestRedis;
  api: RunningApi;
  url: string;
  dataDir: string;
  request<T = UntypedJson>(method: string, path: string, options?: RequestOptions): Promise<HttpReply<T>>;
  /** A request through node:http (see rawRequest). */
  raw(method: string, path: string, options?: RawRequestOptions): Promise<RawReply>;
  /** A new account with an admin key holding `scopes` (all by default). */
  account(options?: { credits?: number; scopes?: Scope[]; name?: string }): Promise<{ id: number; key: string }>;
  /** An admin key held by a team (an account or a child team). */
  adminKey(teamId: number, scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  overrides?: Record<string, unknown>;
  /** Where the processes' log lines go (at TERNMAIL_LOG_LEVEL, silent unless the test sets it), to read them. */
  logDestination?: DestinationStream;
  /** What the API is started with (a fixture dashboard group). */
  api?: ApiOptions;
}

/** Config, runtime and API; a failure on the way stops what was started, so no test file hangs on it. */
async function startParts(env: Record<string, string>, options: HarnessOptions, cleanup: () => Promise<void>) {
  let rt: Runtime | undefined;
  try {
    const config = loadConfig({ env, overrides: options.overrides });
    rt = await openRuntime(config, 'test', createLogger('test', config.log.level, options.logDestination));
    const api = await startApi(config, rt, options.api);
    return { config, rt, api };
  } catch (err) {
    await rt?.close().catch(() => undefined);
    await cleanup();
    throw err;
  }
}

/** The variables of a harness's Tern: its temp dir, its Redis, free loopback ports, no machine config. */
async function harnessEnv(dataDir: string, redis: TestRedis, options: HarnessOptions): Promise<Record<string, string>> {
  return {
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_HOST: '127.0.0.1',
    TERNMAIL_API_PORT: '0',
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    // Free ports for the MTA's listeners, so test files running side by side never collide.
    TERNMAIL_SMTP_STARTTLS_PORTS: String(await freePort()),
    TERNMAIL_SMTP_TLS_PORTS: String(await freePort()),
    TERNMAIL_MX_PORT: String(await freePort()),
    TERNMAIL_METRICS_PORT: '0',
    // The API's metrics listener (never its own port), so a test can scrape what the API counts.
    TERNMAIL_API_METRICS_PORT: '0',
    TERNMAIL_CONFIG: join(dataDir, 'none.json'),
    TERNMAIL_LOG_LEVEL: process.env.TERN_TEST_LOG ?? 'silent',
    // TERN_TEST_ENGINE=postgres: a fresh PostgreSQL database for this data dir.
    ...(await testEngineEnv(dataDir)),
    ...options.env,
  };
}

/** One request to the API at `baseUrl` through fetch, JSON in and (when it parses) out. */
export async function request<T>(baseUrl: string, method: string, path: string, o: RequestOptions = {}): Promise<HttpReply<T>> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.teamId !== undefined) headers['x-account-id'] = String(o.teamId);
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-test-'));
  const redis = await startRedis();
  const env = await harnessEnv(dataDir, redis, options);
  // An explicit empty config file keeps a machine's /etc/ternmail out of the tests.
  writeFileSync(env.TERNMAIL_CONFIG!, '{}');
  const { config, rt, api } = await startParts(env, options, async () => {
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let counter = 0;
  return {
    config,
    rt,
    redis,
    api,
    url: api.url,
    dataDir,
    request: (method, path, o) => request(api.url, method, path, o),
    raw: (method, path, o) => rawRequest(api.url, method, path, o),
    async account(o = {}) {
      const team = await createAccount(rt.store, config, { name: o.name ?? `Account ${++counter}`, credits: o.credits ?? 100 });
      const { key } = await createAdminKey(rt.store, config, team.id, 'test key', o.scopes ?? [...SCOPES]);
      return { id: team.id, key };
    },
    async adminKey(teamId, scopes) {
      return (await createAdminKey(rt.store, config, teamId, 'scoped key', scopes)).key;
    },
    async close() {
      // Redis and the data dir go even when a test broke the runtime on purpose (a closed store).
      try {
        await api.close();
        await rt.close();
      } finally {
        await redis.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
