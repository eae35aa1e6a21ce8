// The host sysadmin's use cases, as the `ternmail` CLI runs them on the machine: the store opened on the data dir,
// no Redis unless a use case needs one (the queue's schedule, the processes' state), and the same use cases the
// dashboard's operators go through (a suspension audited alike, users, credits, the queue). The CLI translates.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { openStore, type Store } from '../store/index.js';
import { Queue } from '../queue/queue.js';
import { SCOPES, type Scope } from '../scopes.js';
import type { Team } from '../domain/team.js';
import { createAccount, createAdminKey, teamById, updateAccount } from './accounts.js';
import { Credits } from './credits.js';
import { TeamAdministration } from './admin/teams.js';
import { checkAndRecord, type CheckedDomain } from './domains.js';
import { operatorUsers, type Identified } from './identity/index.js';
import type { Users, UserWithPassword } from './identity/users.js';
import { QueueControl } from './queue-control.js';
import { DisposableFilter } from '../intake/disposable.js';
import { SystemStatus } from './system-status.js';
import { notFound, type Managed } from './management-refusals.js';

/** What the first start made: an account, an admin key with every scope and the owner user, shown once. */
export interface FirstStart {
  accountId: number;
  key: string;
  /** The owner user and its one-time password. */
  owner: UserWithPassword;
}

/** Accounts as the host's sysadmin makes and changes them (no write rate, no role: the host owns the data dir). */
export class HostAccounts {
  constructor(private readonly d: { store: Store; config: Config }) {}

  create(a: { name: string; credits?: number; limitPerSecond?: number }): Promise<Team> {
    return createAccount(this.d.store, this.d.config, a);
  }

  get(id: number): Promise<Managed<Team>> {
    return teamById(this.d.store, id);
  }

  update(id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Managed<Team>> {
    return updateAccount(this.d.store, id, fields);
  }

  /** issueAdminKey's rules; a refusal is thrown as the command's error. */
  createAdminKey(teamId: number, title: string, scopes: Scope[]): Promise<{ id: number; key: string }> {
    return createAdminKey(this.d.store, this.d.config, teamId, title, scopes);
  }
}

export interface HostCore {
  readonly accounts: HostAccounts;
  readonly credits: Credits;
  /** Suspension and reactivation, recorded in the audit log with the CLI as the actor. */
  readonly adminTeams: TeamAdministration;
  /** The dashboard's users and operators (no Redis: no login happens here). */
  readonly users: Users;
  /** Any team's domain checked now and recorded (the sysadmin is not rate-limited: no Redis counts it). */
  checkDomain(id: string, log: Logger): Promise<Managed<CheckedDomain>>;
  /**
   * On embedded defaults with no account yet: the first account, an admin key holding every scope and the owner
   * user `ownerEmail`; null when an account exists (a restart).
   */
  firstStart(ownerEmail: string): Promise<Identified<FirstStart> | null>;
  /** The queue as operators steer it; `redis` is the CLI's own connection, for the schedule of what it releases. */
  queueControl(redis: Redis): QueueControl;
  /** What runs and answers: the processes, Redis, the queue (`redis` may be down: that is a finding). */
  systemStatus(redis: Redis): SystemStatus;
  close(): Promise<void>;
}

const quiet = createLogger('cli', 'silent');

/** Opens the store on the configured data dir (creating it on a first command) and the host's use cases over it. */
export async function openHostCore(config: Config): Promise<HostCore> {
  const store = await openStore(config.dataDir, config.databaseUrl);
  const accounts = new HostAccounts({ store, config });
  const users = operatorUsers({ store, config });
  const queueOn = (redis: Redis) => new Queue(store, redis, quiet);
  return {
    accounts,
    credits: new Credits({ store }),
    adminTeams: new TeamAdministration({ store, config }),
    users,
    async checkDomain(id, log) {
      const domain = await store.domains.get(id);
      return domain ? checkAndRecord({ store, config }, domain, log) : notFound('domain', `no domain ${id}`);
    },
    async firstStart(ownerEmail) {
      if ((await store.teams.count()) > 0) return null;
      const account = await accounts.create({ name: 'Default account', credits: config.accounts.firstStartCredits });
      const { key } = await accounts.createAdminKey(account.id, 'First-start key', [...SCOPES]);
      const owner = await users.create(account.id, { email: ownerEmail, name: 'Owner', role: 'owner' }, quiet);
      return owner.ok ? { ok: true, value: { accountId: account.id, key, owner: owner.value } } : owner;
    },
    queueControl: (redis) => new QueueControl({ store, queue: queueOn(redis), disposable: new DisposableFilter(config.disposableDomains) }),
    systemStatus: (redis) => new SystemStatus({ config, store, redis, queue: queueOn(redis) }),
    close: () => store.close(),
  };
}
