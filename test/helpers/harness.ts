// A running Tern for one test file: real Redis, a real SQLite file in a temp dir, the HTTP sidecar on a
// free loopback port, and helpers to make accounts, keys and requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/log.js';
import { openRuntime, type Runtime } from '../../shared/runtime.js';
import { createAccount, createAdminKey } from '../../shared/bootstrap.js';
import { SCOPES, type Scope } from '../../shared/scopes.js';
import { startApi, type RunningApi } from '../../api/main.js';
import { startRedis, type TestRedis } from './redis.js';

export interface HttpReply<T = any> {
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
  accountId?: number | string;
}

export interface Harness {
  config: Config;
  rt: Runtime;
  redis: TestRedis;
  api: RunningApi;
  url: string;
  dataDir: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpReply<T>>;
  /** A new root account with an admin key holding `scopes` (all by default). */
  account(options?: { credits?: number; scopes?: Scope[]; name?: string }): Promise<{ id: number; key: string }>;
  adminKey(accountId: number, scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-test-'));
  const redis = await startRedis();
  const env: Record<string, string> = {
    TERNMAIL_DATA_DIR: dataDir,
    TERNMAIL_REDIS_URL: redis.url,
    TERNMAIL_API_HOST: '127.0.0.1',
    TERNMAIL_API_PORT: '0',
    TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test',
    TERNMAIL_CONFIG: join(dataDir, 'none.json'),
    TERNMAIL_LOG_LEVEL: process.env.TERN_TEST_LOG ?? 'silent',
    ...options.env,
  };
  // An explicit empty config file keeps a machine's /etc/ternmail out of the tests.
  const { writeFileSync } = await import('node:fs');
  writeFileSync(env.TERNMAIL_CONFIG!, '{}');
  const config = loadConfig({ env, overrides: options.overrides });
  const rt = await openRuntime(config, 'test', createLogger('test', config.log.level));
  const api = await startApi(config, rt);

  async function request<T>(method: string, path: string, o: RequestOptions = {}): Promise<HttpReply<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.accountId !== undefined) headers['x-account-id'] = String(o.accountId);
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(api.url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  let counter = 0;
  return {
    config,
    rt,
    redis,
    api,
    url: api.url,
    dataDir,
    request,
    async account(o = {}) {
      const team = await createAccount(rt.store, config, { name: o.name ?? `Account ${++counter}`, credits: o.credits ?? 100 });
      const { key } = await createAdminKey(rt.store, config, team.id, 'test key', o.scopes ?? [...SCOPES]);
      return { id: team.id, key };
    },
    async adminKey(accountId, scopes) {
      return (await createAdminKey(rt.store, config, accountId, 'scoped key', scopes)).key;
    },
    async close() {
      await api.close();
      await rt.close();
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
