#!/usr/bin/env node
// The `ternmail` command: the two processes, `start` for both at once, and the operator's CLI.
// Operator commands print one JSON object on stdout, or a message on stderr with a non-zero exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadConfig, type Config } from '../config.js';
import type { FirstStart } from '../core/host.js';
import type { Managed } from '../core/management-refusals.js';
import { suspensionBody } from '../core/presenters.js';
import { parseScopes } from '../scopes.js';
import { DEFAULT_SUSPENSION_REASON } from '../domain/team.js';
import { CLI } from '../domain/credits.js';
import { stopChild } from '../stop-child.js';
import { reachableHost } from '../process-probe.js';
import { serviceEnv, serviceNodeFlags } from '../node-flags.js';
import { createLogger } from '../log.js';
import type { IdentityRefusal } from '../core/identity/index.js';
import { isOperator, type User } from '../domain/user.js';
import { busyListeners } from '../listeners.js';

import { flags, integer, required, UsageError } from './cli-flags.js';
import { PrintedLines, queueCommands } from './queue-commands.js';
import { cliActor, valueOf, withHost } from './host-commands.js';

// The processes are their own entry files (api/process.js, mta/process.js), found next to this one in dist/ and never
// imported by name: the command depends on neither process, and operator commands start without loading them.

const USAGE = `usage: ternmail <command>
  api | mta | start
  account create --name NAME [--credits N] [--limit-per-second N]
  account update --id ID [--limit-per-second N] [--plan NAME]
  admin-key create --account ID --title T --scopes s1,s2|all
  credits add --account ID --amount N
  team suspend --team ID [--by-platform] [--reason TEXT]
  team reactivate --team ID [--reason TEXT]
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
  store copy --to postgres://USER@HOST:PORT/DATABASE [--json]   (a stopped installation into an empty database)
  status [--json]
  config check`;

/** The team commands name a missing team as they always have. */
const noTeam = <T>(id: number, m: Managed<T>): Managed<T> =>
  !m.ok && m.refusal.kind === 'not_found' ? { ok: false, refusal: { ...m.refusal, message: `no team ${id}` } } : m;

type Command = (config: Config, args: string[]) => Promise<unknown>;

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
    return withHost(config, async (host) => {
      const team = await host.accounts.create({ name, credits, limitPerSecond });
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
    return withHost(config, async (host) => {
      const team = valueOf(await host.accounts.update(id, { limitPerSecond, planType: plan }));
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
    return withHost(config, (host) => host.accounts.createAdminKey(teamId, title, scopes));
  },
  'credits add': (config, args) => {
    const f = flags(args, { account: 'string', amount: 'string', reason: 'string' });
    const accountId = integer(f, 'account', { required: true })!;
    const amount = integer(f, 'amount', { required: true, min: 1 })!;
    const reason = typeof f.reason === 'string' ? f.reason : 'granted with ternmail credits add';
    return withHost(config, async (host) => {
      const team = valueOf(await host.accounts.get(accountId));
      const entry = await host.credits.adjust(team, amount, CLI, reason, cliLog);
      // The core refuses a child team sharing its account's credits; the sysadmin is told which account to name.
      if (!entry.ok && entry.refusal.kind === 'invalid_field' && entry.refusal.field === 'account_id')
        throw new Error(`${accountId} is a child team sharing its account's credits; add them to its account ${team.parentId}`);
      if (!entry.ok) throw new Error(entry.refusal.kind === 'invalid_field' ? entry.refusal.message : `refused: ${entry.refusal.kind}`);
      return { balance: entry.value.balanceAfter };
    });
  },
  'team suspend': (config, args) => {
    const f = flags(args, { team: 'string', 'by-platform': 'boolean', reason: 'string' });
    const id = integer(f, 'team', { required: true })!;
    // Without --by-platform the owner may lift it, but the operator suspended it all the same (and the log says so).
    const reason = typeof f.reason === 'string' ? f.reason : DEFAULT_SUSPENSION_REASON.platform;
    return withHost(config, async (host) => {
      const t = valueOf(noTeam(id, await host.adminTeams.suspend(cliActor(), id, reason, cliLog, f['by-platform'] ? 'platform' : 'account')));
      return { id: t.id, status: t.status, suspended_by: t.suspendedBy, suspension: t.suspension && suspensionBody(t.suspension) };
    });
  },
  'team reactivate': (config, args) => {
    const f = flags(args, { team: 'string', reason: 'string' });
    const id = integer(f, 'team', { required: true })!;
    const reason = typeof f.reason === 'string' ? f.reason : 'reactivated with ternmail team reactivate';
    return withHost(config, async (host) => {
      // The suspension being lifted is printed, so the operator sees what it was (there is no `team show`).
      const before = valueOf(noTeam(id, await host.accounts.get(id))).suspension;
      const team = valueOf(noTeam(id, await host.adminTeams.reactivate(cliActor(), id, reason, cliLog)));
      return { id: team.id, status: team.status, lifted: before && suspensionBody(before) };
    });
  },
  'domain check': (config, args) => {
    const f = flags(args, { id: 'string' });
    const id = required(f, 'id');
    return withHost(config, async (host) => {
      const { domain, check } = valueOf(await host.checkDomain(id, cliLog));
      return {
        id: domain.id,
        domain_name: domain.name,
        verification_status: domain.verificationStatus,
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
    return withHost(config, async (host) => {
      const created = await host.users.create(accountId, { email, role, name, teamId }, cliLog);
      if (!created.ok) throw userCommandError(created.refusal);
      return userBody(created.value.user, created.value.oneTimePassword);
    });
  },
  'user reset-password': (config, args) => {
    const f = flags(args, { email: 'string' });
    const email = required(f, 'email');
    return withHost(config, async (host) => {
      const reset = await host.users.resetPassword(email, cliLog);
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
    return withHost(config, async (host) => {
      const created = await host.users.createOperator({ email, name }, cliLog);
      if (!created.ok) throw userCommandError(created.refusal);
      return userBody(created.value.user, created.value.oneTimePassword);
    });
  },
  // The store is opened by the copy itself (the SQLite database held exclusively, not migrated), not by withHost.
  'store copy': async (config, args) => {
    const { storeCopyCommand } = await import('./store-commands.js');
    return storeCopyCommand(config, args);
  },
  'operator list': (config, args) => {
    flags(args, {});
    return withHost(config, async (host) => {
      const operators = await host.users.operators();
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

type Role = 'api' | 'mta';

/** A process's entry file, next to this command in the built tree (dist/api/process.js, dist/mta/process.js). */
const processEntry = (role: Role): string => fileURLToPath(new URL(`../../${role}/process.js`, import.meta.url));

/**
 * `ternmail api` and `ternmail mta`, which units installed before the entry files still run: the entry file is
 * loaded into this process by a URL computed here, so it keeps this pid (systemd's MAINPID, its SIGHUP), its signals
 * and its exit code, with no second Node process; the command never names the processes' modules in an import.
 */
async function runProcess(role: Role): Promise<void> {
  await import(pathToFileURL(processEntry(role)).href);
}

/** First start on embedded defaults: an account, an admin key with every scope and the owner user, printed once. */
async function firstStart(config: Config): Promise<FirstStart | null> {
  return withHost(config, async (host) => {
    const first = await host.firstStart(config.dashboard.ownerEmail);
    if (first && !first.ok) throw userCommandError(first.refusal);
    return first && first.value;
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
        `  Login:      ${first.owner.user.email}`,
        `  Password:   ${first.owner.oneTimePassword}`,
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
  const redis = config.redis ? null : await startManagedRedis(config.dataDir);
  let first: FirstStart | null;
  try {
    first = await firstStart(config);
  } catch (err) {
    await redis?.stop();
    throw err;
  }
  printWelcome(config, first);
  const env = { ...serviceEnv(process.env), ...(redis ? { TERNMAIL_REDIS_URL: redis.url } : {}) };
  const children: ChildProcess[] = (['api', 'mta'] as const).map((role) =>
    spawn(process.execPath, [...serviceNodeFlags(role), processEntry(role)], { env, stdio: 'inherit' }),
  );
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
  const [first, second] = argv;
  if (!first || first === '--help' || first === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (first === 'config' && second === 'check') return runConfigCheck(argv.slice(2));
  // The processes load their configuration themselves.
  if (first === 'api' || first === 'mta') return runProcess(first);
  const config = loadConfig();
  if (first === 'status') return runStatus(config, argv.slice(1));
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
