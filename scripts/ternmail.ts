#!/usr/bin/env node
// The `ternmail` command: the two processes, `start` for both at once, and the operator's CLI.
// Operator commands print one JSON object on stdout, or a message on stderr with a non-zero exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../shared/config.js';
import { openStore, type Store } from '../shared/store/index.js';
import { createAccount, createAdminKey } from '../shared/bootstrap.js';
import { parseScopes, SCOPES } from '../shared/scopes.js';
import { createResolver } from '../shared/dns.js';
import { ensureTlsCertificate } from '../shared/tls.js';
import { loadSecretBox } from '../shared/secret-box.js';
import { rootIdOf } from '../shared/store/accounts.js';
import { startApi } from '../api/main.js';
import { startMta } from '../mta/main.js';
import { checkDomainDns } from '../mta/domain-check.js';
import { startManagedRedis } from './managed-redis.js';

class UsageError extends Error {}

const USAGE = `usage: ternmail <command>
  api | mta | start
  account create --name NAME [--credits N] [--limit-per-second N]
  account update --id ID [--limit-per-second N] [--plan NAME]
  admin-key create --account ID --title T --scopes s1,s2|all
  credits add --account ID --amount N
  team suspend --team ID [--by-platform]
  team reactivate --team ID
  domain check --id DOMAIN_ID`;

type Flags = Record<string, string | boolean | undefined>;

function flags(args: string[], spec: Record<string, 'string' | 'boolean'>): Flags {
  const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }]));
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true }).values as Flags;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function required(f: Flags, name: string): string {
  const v = f[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function integer(f: Flags, name: string, options: { required?: boolean; min?: number } = {}): number | undefined {
  const v = f[name];
  if (v === undefined) {
    if (options.required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || !/^-?\d+$/.test(v) || Number(v) < (options.min ?? 0)) {
    throw new UsageError(`--${name} must be an integer${options.min !== undefined ? ` of at least ${options.min}` : ''}`);
  }
  return Number(v);
}

async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.dataDir);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function mustGetTeam(store: Store, id: number) {
  const team = await store.accounts.get(id);
  if (!team) throw new Error(`no account or team ${id}`);
  return team;
}

type Command = (config: Config, args: string[]) => Promise<unknown>;

const operatorCommands: Record<string, Command> = {
  'account create': (config, args) => {
    const f = flags(args, { name: 'string', credits: 'string', 'limit-per-second': 'string' });
    const name = required(f, 'name');
    if (name.length < 2 || name.length > 100) throw new UsageError('--name must have 2 to 100 characters');
    const credits = integer(f, 'credits');
    const limitPerSecond = integer(f, 'limit-per-second', { min: 1 });
    return withStore(config, async (store) => {
      const team = await createAccount(store, config, { name, credits, limitPerSecond });
      return { id: team.id, name: team.name };
    });
  },
  'account update': (config, args) => {
    const f = flags(args, { id: 'string', 'limit-per-second': 'string', plan: 'string' });
    const id = integer(f, 'id', { required: true })!;
    const limitPerSecond = integer(f, 'limit-per-second', { min: 1 });
    const plan = typeof f.plan === 'string' ? f.plan : undefined;
    if (limitPerSecond === undefined && plan === undefined) throw new UsageError('give --limit-per-second and/or --plan');
    return withStore(config, async (store) => {
      await mustGetTeam(store, id);
      const team = (await store.accounts.update(id, { limitPerSecond, planType: plan }))!;
      return { id: team.id, name: team.name, limit_per_second: team.limitPerSecond, plan_type: team.planType };
    });
  },
  'admin-key create': (config, args) => {
    const f = flags(args, { account: 'string', title: 'string', scopes: 'string' });
    const accountId = integer(f, 'account', { required: true })!;
    const title = required(f, 'title');
    let scopes;
    try {
      scopes = parseScopes(required(f, 'scopes'));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    return withStore(config, (store) => createAdminKey(store, config, accountId, title, scopes));
  },
  'credits add': (config, args) => {
    const f = flags(args, { account: 'string', amount: 'string' });
    const accountId = integer(f, 'account', { required: true })!;
    const amount = integer(f, 'amount', { required: true, min: 1 })!;
    return withStore(config, async (store) => {
      const team = await mustGetTeam(store, accountId);
      if (team.parentId !== null) throw new Error(`${accountId} is a child team; credits are pooled at its account ${team.parentId}`);
      return { balance: await store.accounts.addCredits(rootIdOf(team), amount) };
    });
  },
  'team suspend': (config, args) => {
    const f = flags(args, { team: 'string', 'by-platform': 'boolean' });
    const id = integer(f, 'team', { required: true })!;
    return withStore(config, async (store) => {
      const change = await store.accounts.changeStatus(id, 'suspended', f['by-platform'] ? 'platform' : 'account');
      if (!change.ok) throw new Error(`no team ${id}`);
      return { id: change.team.id, status: change.team.status, suspended_by: change.team.suspendedBy };
    });
  },
  'team reactivate': (config, args) => {
    const f = flags(args, { team: 'string' });
    const id = integer(f, 'team', { required: true })!;
    return withStore(config, async (store) => {
      const change = await store.accounts.changeStatus(id, 'active', 'platform');
      if (!change.ok) throw new Error(`no team ${id}`);
      return { id: change.team.id, status: change.team.status };
    });
  },
  'domain check': (config, args) => {
    const f = flags(args, { id: 'string' });
    const id = required(f, 'id');
    return withStore(config, async (store) => {
      const domain = await store.domains.get(id);
      if (!domain) throw new Error(`no domain ${id}`);
      const check = await checkDomainDns(domain, createResolver(config.dnsServers), config.publicHostname);
      const updated = await store.domains.recordCheck(domain.id, { verified: check.verified, dmarcPolicy: check.dmarcPolicy, summary: check.summary, result: check });
      return {
        id: domain.id,
        domain_name: domain.name,
        verification_status: updated?.verificationStatus ?? domain.verificationStatus,
        records: { dkim: check.dkim, spf: check.spf, mx: check.mx },
        dmarc_policy: check.dmarcPolicy,
      };
    });
  },
};

function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    void stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

async function runApi(config: Config): Promise<void> {
  const api = await startApi(config);
  onStop(() => api.close());
}

async function runMta(config: Config): Promise<void> {
  const mta = await startMta(config);
  onStop(() => mta.close());
}

/** First start on embedded defaults: an account and an admin key with every scope, printed once. */
async function firstStart(config: Config): Promise<{ accountId: number; key: string } | null> {
  return withStore(config, async (store) => {
    if ((await store.accounts.count()) > 0) return null;
    const account = await createAccount(store, config, { name: 'Default account', credits: config.accounts.firstStartCredits });
    const { key } = await createAdminKey(store, config, account.id, 'First-start key', [...SCOPES]);
    return { accountId: account.id, key };
  });
}

function printWelcome(config: Config, first: { accountId: number; key: string }): void {
  const url = `http://${config.api.host}:${config.api.port}`;
  const lines = [
    '',
    'Tern is starting for the first time.',
    `  API:        ${url}/v2  (OpenAPI: ${url}/v2/openapi.json)`,
    `  Account:    ${first.accountId}`,
    `  Admin key:  ${first.key}`,
    '  This key is shown only once; it holds every scope. Try:',
    `    curl -s -H 'Authorization: Bearer ${first.key}' ${url}/v2/info`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

async function runStart(config: Config): Promise<void> {
  loadSecretBox(config.dataDir);
  await ensureTlsCertificate(config);
  const redis = config.redisUrl ? null : await startManagedRedis(config.dataDir);
  const env = { ...process.env, ...(redis ? { TERNMAIL_REDIS_URL: redis.url } : {}) };
  const first = await firstStart(config);
  if (first) printWelcome(config, first);
  const script = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = ['api', 'mta'].map((role) => spawn(process.execPath, [script, role], { env, stdio: 'inherit' }));
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(
      children.map((c) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGTERM'))))),
    );
    await redis?.stop();
    process.exit(code);
  };
  for (const child of children) child.once('exit', (code) => void stopAll(code ?? 1));
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGINT', () => void stopAll(0));
}

async function main(argv: string[]): Promise<void> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const config = loadConfig();
  if (first === 'api') return runApi(config);
  if (first === 'mta') return runMta(config);
  if (first === 'start') return runStart(config);
  const command = operatorCommands[`${first} ${second ?? ''}`];
  if (!command) throw new UsageError(`unknown command: ${argv.join(' ')}`);
  const result = await command(config, argv.slice(2));
  process.stdout.write(JSON.stringify(result) + '\n');
}

main(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`ternmail: ${err.message}\n`);
  if (err instanceof UsageError) process.stderr.write(USAGE + '\n');
  process.exit(err instanceof UsageError ? 2 : 1);
});
