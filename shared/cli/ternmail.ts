#!/usr/bin/env node
// The `ternmail` command: the two processes, `start` for both at once, and the operator's CLI.
// Operator commands print one JSON object on stdout, or a message on stderr with a non-zero exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../config.js';
import { loadPolicies, type Policies } from '../policies/index.js';
import { openStore } from '../store/index.js';
import { type Store } from '../store/index.js';
import { createAccount, createAdminKey } from '../core/accounts.js';
import { parseScopes, SCOPES } from '../scopes.js';
import { DEFAULT_SUSPENSION_REASON, poolIdOf } from '../domain/team.js';
import { CLI } from '../domain/credits.js';
import { Credits } from '../core/credits.js';
import { stopChild } from '../stop-child.js';
import { reachableHost } from '../process-probe.js';
import { serviceNodeFlags } from '../node-flags.js';
import { createLogger } from '../log.js';
import { operatorUsers, type IdentityRefusal } from '../core/identity/index.js';
import { isOperator, type User } from '../domain/user.js';

import { flags, integer, required, UsageError } from './cli-flags.js';
import { PrintedLines, queueCommands } from './queue-commands.js';
import { busyListeners, explainBindError } from './listeners.js';

// The processes' modules are imported when needed, so that operator commands start quickly.

const USAGE = `usage: ternmail <command>
  api | mta | start
  account create --name NAME [--credits N] [--limit-per-second N]
  account update --id ID [--limit-per-second N] [--plan NAME]
  admin-key create --account ID --title T --scopes s1,s2|all
  credits add --account ID --amount N
  team suspend --team ID [--by-platform] [--reason TEXT]
  team reactivate --team ID
  domain check --id DOMAIN_ID
  user create --account ID --email EMAIL --role owner|admin|viewer [--name NAME] [--team ID]
  user reset-password --email EMAIL
  operator create --email EMAIL [--name NAME]
  operator list
  queue list [SELECTORS] [--limit N] [--json]
  queue summary [SELECTORS] [--json]
  queue flush|hold|release SELECTORS|--all [--reason TEXT] [--json]
  queue purge SELECTORS|--all --reason TEXT [--notify] [--json]
  queue requeue SELECTORS|--all [--reason TEXT] [--json]   (bounced or failed recipients; --state bounced|failed)
    SELECTORS: [--team ID] [--domain D] [--state queued|deferred|sending|held] [--older-than 90s|15m|1h|2d] [--message ID]
  backup --to FILE
  restore --from FILE --data-dir DIR
  status [--json]
  config check`;

async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.dataDir);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function mustGetTeam(store: Store, id: number) {
  const team = await store.teams.get(id);
  if (!team) throw new Error(`no account or team ${id}`);
  return team;
}

/** An operator's reason for a suspension, shown to the team's owner in GET /v2/info: one line of text. */
function operatorReason(text: string | boolean): string {
  const reason = typeof text === 'string' ? text : '';
  if (reason.length < 1 || reason.length > 500) throw new UsageError('--reason must have 1 to 500 characters');
  if (/[\p{Cc}\p{Cf}]/u.test(reason)) throw new UsageError('--reason must be one line of text, without control characters');
  return reason;
}

type Command = (config: Config, args: string[]) => Promise<unknown>;

/** The dashboard's users, as the operator manages them (no Redis: no login happens here). */
const usersOf = (store: Store, config: Config) => operatorUsers({ store, config });

/** The operator's commands print what they did; they write no log lines. */
const cliLog = createLogger('cli', 'silent');

/** A refusal of a user command: bad input is a usage error (exit 2), a missing account or user an error (exit 1). */
function userCommandError(refusal: IdentityRefusal): Error {
  switch (refusal.kind) {
    case 'invalid_field':
      return new UsageError(`--${refusal.field}: ${refusal.message}`);
    case 'email_taken':
      return new Error('a user with this email already exists');
    case 'not_found':
      return new Error(refusal.message);
    default:
      return new Error(`refused: ${refusal.kind}`);
  }
}

/** A user as the commands print it; an operator has no team. */
const userItem = (user: User) => ({ id: user.id, email: user.email, name: user.name, role: user.role, team_id: isOperator(user) ? null : user.teamId });

const userBody = (user: User, oneTimePassword: string) => ({ ...userItem(user), one_time_password: oneTimePassword });

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
    const plan = typeof f.plan === 'string' ? f.plan.trim() : undefined;
    if (plan !== undefined && (plan.length < 1 || plan.length > 50)) throw new UsageError('--plan must have 1 to 50 characters');
    if (limitPerSecond === undefined && plan === undefined) throw new UsageError('give --limit-per-second and/or --plan');
    return withStore(config, async (store) => {
      await mustGetTeam(store, id);
      const team = (await store.teams.update(id, { limitPerSecond, planType: plan }))!;
      return { id: team.id, name: team.name, limit_per_second: team.limitPerSecond, plan_type: team.planType };
    });
  },
  'admin-key create': (config, args) => {
    const f = flags(args, { account: 'string', title: 'string', scopes: 'string' });
    // --account names the team that will hold the key (an account or a child team); the flag keeps its name.
    const teamId = integer(f, 'account', { required: true })!;
    const title = required(f, 'title');
    let scopes;
    try {
      scopes = parseScopes(required(f, 'scopes'));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    return withStore(config, (store) => createAdminKey(store, config, teamId, title, scopes));
  },
  'credits add': (config, args) => {
    const f = flags(args, { account: 'string', amount: 'string', reason: 'string' });
    const accountId = integer(f, 'account', { required: true })!;
    const amount = integer(f, 'amount', { required: true, min: 1 })!;
    const reason = typeof f.reason === 'string' ? f.reason : 'granted with ternmail credits add';
    return withStore(config, async (store) => {
      const team = await mustGetTeam(store, accountId);
      if (poolIdOf(team) !== team.id) throw new Error(`${accountId} is a child team sharing its account's credits; add them to its account ${team.parentId}`);
      const entry = await new Credits({ store }).adjust(team, amount, CLI, reason, cliLog);
      if (!entry.ok) throw new Error(entry.refusal.kind === 'invalid_field' ? entry.refusal.message : `refused: ${entry.refusal.kind}`);
      return { balance: entry.value.balanceAfter };
    });
  },
  'team suspend': (config, args) => {
    const f = flags(args, { team: 'string', 'by-platform': 'boolean', reason: 'string' });
    const id = integer(f, 'team', { required: true })!;
    // Without --by-platform the owner may lift it, but the operator suspended it all the same.
    const reason = f.reason === undefined ? DEFAULT_SUSPENSION_REASON.platform : operatorReason(f.reason);
    return withStore(config, async (store) => {
      const change = await store.teams.changeStatus(id, 'suspended', f['by-platform'] ? 'platform' : 'account', { reason });
      if (!change.ok) throw new Error(`no team ${id}`);
      const { suspensionBody } = await import('../../api/http/admin/info.js');
      const t = change.team;
      return { id: t.id, status: t.status, suspended_by: t.suspendedBy, suspension: t.suspension && suspensionBody(t.suspension) };
    });
  },
  'team reactivate': (config, args) => {
    const f = flags(args, { team: 'string' });
    const id = integer(f, 'team', { required: true })!;
    return withStore(config, async (store) => {
      // The suspension being lifted is printed, so the operator sees what it was (there is no `team show`).
      const before = (await store.teams.get(id))?.suspension ?? null;
      const change = await store.teams.changeStatus(id, 'active', 'platform');
      if (!change.ok) throw new Error(`no team ${id}`);
      const { suspensionBody } = await import('../../api/http/admin/info.js');
      return { id: change.team.id, status: change.team.status, lifted: before && suspensionBody(before) };
    });
  },
  'domain check': (config, args) => {
    const f = flags(args, { id: 'string' });
    const id = required(f, 'id');
    return withStore(config, async (store) => {
      const domain = await store.domains.get(id);
      if (!domain) throw new Error(`no domain ${id}`);
      const [{ checkDomainDns }, { createResolver }] = await Promise.all([import('../verification/domain-check.js'), import('../dns.js')]);
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
  'user create': (config, args) => {
    const f = flags(args, { account: 'string', email: 'string', role: 'string', name: 'string', team: 'string' });
    const accountId = integer(f, 'account', { required: true, min: 1 })!;
    const email = required(f, 'email');
    const role = required(f, 'role');
    const teamId = integer(f, 'team', { min: 1 });
    const name = typeof f.name === 'string' ? f.name : undefined;
    return withStore(config, async (store) => {
      const created = await usersOf(store, config).create(accountId, { email, role, name, teamId }, cliLog);
      if (!created.ok) throw userCommandError(created.refusal);
      return userBody(created.value.user, created.value.oneTimePassword);
    });
  },
  'user reset-password': (config, args) => {
    const f = flags(args, { email: 'string' });
    const email = required(f, 'email');
    return withStore(config, async (store) => {
      const reset = await usersOf(store, config).resetPassword(email, cliLog);
      if (!reset.ok) throw userCommandError(reset.refusal);
      return userBody(reset.value.user, reset.value.oneTimePassword);
    });
  },
  // A platform operator: a user of no account, for the dashboard's admin routes. Its one-time password is reset
  // like any user's (`user reset-password`).
  'operator create': (config, args) => {
    const f = flags(args, { email: 'string', name: 'string' });
    const email = required(f, 'email');
    const name = typeof f.name === 'string' ? f.name : undefined;
    return withStore(config, async (store) => {
      const created = await usersOf(store, config).createOperator({ email, name }, cliLog);
      if (!created.ok) throw userCommandError(created.refusal);
      return userBody(created.value.user, created.value.oneTimePassword);
    });
  },
  'operator list': (config, args) => {
    flags(args, {});
    return withStore(config, async (store) => {
      const operators = await usersOf(store, config).operators();
      return { operators: operators.map((o) => ({ ...userItem(o), must_change_password: o.mustChangePassword, created_at: o.createdAt })) };
    });
  },
};

/** Commands of one word, followed by their options. */
const oneWordCommands: Record<string, Command> = {
  backup: async (config, args) => {
    const { backupCommand } = await import('./backup-commands.js');
    return backupCommand(config, required(flags(args, { to: 'string' }), 'to'));
  },
  restore: async (_config, args) => {
    const f = flags(args, { from: 'string', 'data-dir': 'string' });
    const { restoreCommand } = await import('./backup-commands.js');
    return restoreCommand(required(f, 'from'), required(f, 'data-dir'));
  },
};

function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    // systemd waits 35 s (TimeoutStopSec); leave before it has to kill us.
    setTimeout(() => process.exit(1), 30_000).unref();
    void stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

async function runApi(config: Config): Promise<void> {
  const { startApi } = await import('../../api/main.js');
  const api = await startApi(config).catch((err: unknown) => {
    throw explainBindError(config, err);
  });
  onStop(() => api.close());
}

/** The MTA runs by every policy (the configuration, the retry policy, the reply rules), loaded once before it starts. */
async function runMta(policies: Policies): Promise<void> {
  const { startMta } = await import('../../mta/main.js');
  const mta = await startMta(policies).catch((err: unknown) => {
    throw explainBindError(policies.config, err);
  });
  onStop(() => mta.close());
  process.on('SIGHUP', () => {
    mta.reloadTls();
    mta.rt.log.info('TLS certificate reloaded');
  });
}

interface FirstStart {
  accountId: number;
  key: string;
  /** The dashboard's owner user: its login email and one-time password. */
  owner: { email: string; password: string };
}

/** First start on embedded defaults: an account, an admin key with every scope and the owner user, printed once. */
async function firstStart(config: Config): Promise<FirstStart | null> {
  return withStore(config, async (store) => {
    if ((await store.teams.count()) > 0) return null;
    const account = await createAccount(store, config, { name: 'Default account', credits: config.accounts.firstStartCredits });
    const { key } = await createAdminKey(store, config, account.id, 'First-start key', [...SCOPES]);
    const owner = await usersOf(store, config).create(account.id, { email: config.dashboard.ownerEmail, name: 'Owner', role: 'owner' }, cliLog);
    if (!owner.ok) throw userCommandError(owner.refusal);
    return { accountId: account.id, key, owner: { email: owner.value.user.email, password: owner.value.oneTimePassword } };
  });
}

/** The URL to show a user: a wildcard listen address is reached through loopback. */
function apiUrl(config: Config): string {
  return `http://${reachableHost(config.api.host)}:${config.api.port}`;
}

function printWelcome(config: Config, first: FirstStart | null): void {
  const url = apiUrl(config);
  const lines = first
    ? [
        '',
        'Tern is starting for the first time.',
        `  API:        ${url}/v2  (OpenAPI: ${url}/v2/openapi.json)`,
        `  Data dir:   ${config.dataDir}`,
        `  Account:    ${first.accountId}`,
        `  Admin key:  ${first.key}`,
        '  This key is shown only once; it holds every scope. Try:',
        `    curl -s -H 'Authorization: Bearer ${first.key}' ${url}/v2/info`,
        `  Dashboard:  ${url}/`,
        `  Login:      ${first.owner.email}`,
        `  Password:   ${first.owner.password}`,
        '  A one-time password: you choose your own at the first login.',
        '',
      ]
    : [
        `Tern is starting. API: ${url}/v2  Data dir: ${config.dataDir}`,
        // The key and password were shown once, at the first start; the way in is still worth printing.
        `  Dashboard: ${url}/  (first admin key lost? ternmail admin-key create; a password: ternmail user reset-password)`,
      ];
  process.stdout.write(lines.join('\n') + '\n');
  if (config.publicHostnameProblem !== null) process.stdout.write(`\n  WARNING: ${config.publicHostnameProblem}\n\n`);
}

/** How long `start` waits for its children to stop after SIGTERM before it kills them. */
const CHILD_STOP_MS = 30_000;

/** `ternmail start`: api and mta as child processes, plus a managed redis-server when no Redis URL is set. */
async function runStart(config: Config): Promise<void> {
  const [{ loadSecretBox }, { ensureTlsCertificate }, { startManagedRedis }] = await Promise.all([
    import('../secret-box.js'),
    import('../tls.js'),
    import('./managed-redis.js'),
  ]);
  // Every port first: one another program holds stops the start before the data dir, an account or a key exists.
  const busy = await busyListeners(config);
  if (busy.length > 0) throw new Error(`cannot start: ${busy.join('; ')}`);
  loadSecretBox(config.dataDir);
  await ensureTlsCertificate(config);
  const redis = config.redisUrl ? null : await startManagedRedis(config.dataDir);
  let first: FirstStart | null;
  try {
    first = await firstStart(config);
  } catch (err) {
    await redis?.stop();
    throw err;
  }
  printWelcome(config, first);
  const env = { ...process.env, ...(redis ? { TERNMAIL_REDIS_URL: redis.url } : {}) };
  const script = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = (['api', 'mta'] as const).map((role) => spawn(process.execPath, [...serviceNodeFlags(role), script, role], { env, stdio: 'inherit' }));
  let stopping = false;
  // Children first (they flush their work into Redis and SQLite), then Redis.
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(children.map((child) => stopChild(child, CHILD_STOP_MS)));
    await redis?.stop();
    process.exit(code);
  };
  for (const child of children) {
    child.once('error', (err) => {
      process.stderr.write(`ternmail: cannot start a child process: ${err.message}\n`);
      void stopAll(1);
    });
    // A child ending on its own (a crash, a port in use) takes the whole set down, as a failure.
    child.once('exit', () => void stopAll(1));
  }
  process.on('SIGTERM', () => void stopAll(0));
  process.on('SIGINT', () => void stopAll(0));
  // SIGHUP reloads the MTA's TLS certificate, as it does for `ternmail mta` alone.
  process.on('SIGHUP', () => void children[1]?.kill('SIGHUP'));
}

/** `ternmail status`: exit 1 when a part is down. */
async function runStatus(config: Config, args: string[]): Promise<void> {
  const f = flags(args, { json: 'boolean' });
  const { printStatus } = await import('./status.js');
  process.exitCode = await printStatus(config, f.json === true);
}

/** `ternmail config check`: before loadConfig, whose failure it reports setting by setting. */
async function runConfigCheck(args: string[]): Promise<void> {
  flags(args, {});
  const { checkConfig } = await import('./config-check.js');
  process.exitCode = checkConfig();
}

async function main(argv: string[]): Promise<void> {
  // fsyncs, SQLite statements and RSA signatures all run on libuv's pool; 4 threads queue them up.
  // Set before the first pooled call, which creates the pool with this size.
  process.env.UV_THREADPOOL_SIZE ??= '16';
  const [first, second] = argv;
  if (!first || first === '--help' || first === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (first === 'config' && second === 'check') return runConfigCheck(argv.slice(2));
  if (first === 'mta') return runMta(loadPolicies());
  const config = loadConfig();
  if (first === 'status') return runStatus(config, argv.slice(1));
  if (first === 'api') return runApi(config);
  if (first === 'start') return runStart(config);
  const oneWord = Object.hasOwn(oneWordCommands, first);
  const command = oneWord ? oneWordCommands[first] : { ...operatorCommands, ...queueCommands }[`${first} ${second ?? ''}`];
  if (!command) throw new UsageError(`unknown command: ${argv.join(' ')}`);
  const result = await command(config, argv.slice(oneWord ? 1 : 2));
  process.stdout.write(result instanceof PrintedLines ? result.lines.map((l) => `${l}\n`).join('') : JSON.stringify(result) + '\n');
}

main(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`ternmail: ${err.message}\n`);
  if (err instanceof UsageError) process.stderr.write(USAGE + '\n');
  process.exit(err instanceof UsageError ? 2 : 1);
});
