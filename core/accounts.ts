// Operator actions shared by the CLI and first start: accounts and admin keys.
import type { Config } from '../shared/config.js';
import type { Store } from '../store/index.js';
import { generateKey, hashKey, keyEnds } from '../shared/api-key.js';
import { accountIdOf } from '../domain/team.js';
import type { Scope } from '../shared/scopes.js';

export async function createAdminKey(store: Store, config: Config, teamId: number, title: string, scopes: Scope[]): Promise<{ id: number; key: string }> {
  const team = await store.teams.get(teamId);
  if (!team) throw new Error(`no account ${teamId}`);
  const value = generateKey('admin');
  const { start, end } = keyEnds(value);
  const created = await store.keys.createAdmin(
    { teamId, accountId: accountIdOf(team), title, scopes, hash: hashKey(value), start, end },
    config.limits.adminKeysPerAccount,
  );
  if (created === 'limit_reached') throw new Error(`the account already holds ${config.limits.adminKeysPerAccount} admin keys`);
  return { id: created.id, key: value };
}

export async function createAccount(store: Store, config: Config, a: { name: string; credits?: number; limitPerSecond?: number }) {
  return store.teams.createAccount({
    name: a.name,
    credits: a.credits ?? 0,
    limitPerSecond: a.limitPerSecond ?? config.accounts.defaultLimitPerSecond,
    planType: config.accounts.defaultPlan,
    backendRegion: config.accounts.defaultRegion,
  });
}
