// The dashboard's identity use cases on real parts without HTTP: a real redis-server, a real SQLite file in a
// temp dir, the runtime a process opens, and a clock the test moves (sessions and nonces age with it).
import type { Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/log.js';
import { openRuntime, type Runtime } from '../../shared/runtime/runtime.js';
import { createAccount } from '../../shared/core/accounts.js';
import { createIdentity, type Identity } from '../../shared/core/identity/index.js';
import type { Team } from '../../shared/domain/team.js';
import type { AccountRole, AccountUser } from '../../shared/domain/user.js';
import { startRedis } from './redis.js';

export interface IdentityWorld {
  rt: Runtime;
  id: Identity;
  /** Epoch ms the use cases see; move it with `advance`. */
  clock: { now: number; advance(ms: number): void };
  account(name?: string): Promise<Team>;
  childTeam(account: Team, name?: string): Promise<Team>;
  /** A user with a known password (the one-time password changed), ready to log in. */
  user(team: Team, o?: { email?: string; role?: AccountRole; password?: string }): Promise<{ user: AccountUser; password: string }>;
}

let counter = 0;

/** A world for `t`, closed (Redis stopped, data removed) when `t` ends. `overrides` go to the config. */
export async function identityWorld(t: Test, overrides: Record<string, unknown> = {}): Promise<IdentityWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-identity-'));
  const redis = await startRedis();
  writeFileSync(join(dataDir, 'none.json'), '{}');
  const env = { TERNMAIL_DATA_DIR: dataDir, TERNMAIL_REDIS_URL: redis.url, TERNMAIL_CONFIG: join(dataDir, 'none.json'), TERNMAIL_LOG_LEVEL: 'silent' };
  const config = loadConfig({ env, overrides });
  const rt = await openRuntime(config, 'test', createLogger('test', 'silent'));
  t.teardown(async () => {
    await rt.close();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const clock = {
    now: Date.now(),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const id = createIdentity(rt, () => clock.now);
  return {
    rt,
    id,
    clock,
    account: (name = `Account ${++counter}`) => createAccount(rt.store, config, { name }),
    async childTeam(account, name = `Team ${++counter}`) {
      const team = await rt.store.teams.createTeam(account, name, 100);
      if (team === 'limit_reached') throw new Error('team limit');
      return team;
    },
    async user(team, o = {}) {
      const accountId = team.parentId ?? team.id;
      const created = await id.users.create(accountId, { email: o.email ?? `user${++counter}@example.com`, role: o.role ?? 'admin', teamId: team.id }, rt.log);
      if (!created.ok) throw new Error(`user not created: ${JSON.stringify(created.refusal)}`);
      const password = o.password ?? `correct horse ${counter} battery`;
      const changed = await id.users.changePassword(created.value.user, { currentPassword: created.value.oneTimePassword, newPassword: password }, rt.log);
      if (!changed.ok) throw new Error(`password not changed: ${JSON.stringify(changed.refusal)}`);
      return { user: changed.value, password };
    },
  };
}
