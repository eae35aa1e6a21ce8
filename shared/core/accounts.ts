// Operator actions shared by the CLI and first start: accounts and admin keys.
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { Scope } from '../scopes.js';
import { createLogger, type Logger } from '../log.js';
import type { Team } from '../domain/team.js';
import { issueAdminKey } from './admin-keys.js';
import { done, notFound, type Managed } from './management-refusals.js';

const quiet = createLogger('accounts', 'silent');

/** The operator's admin key (CLI, first start): issueAdminKey's rules, a refusal thrown as the command's error. */
export async function createAdminKey(
  store: Store,
  config: Config,
  teamId: number,
  title: string,
  scopes: Scope[],
  log: Logger = quiet,
): Promise<{ id: number; key: string }> {
  const team = await store.teams.get(teamId);
  if (!team) throw new Error(`no account ${teamId}`);
  const issued = await issueAdminKey({ store, config }, team, { name: title, scopes }, log);
  if (issued.ok) return { id: issued.value.key.id, key: issued.value.value };
  const { refusal } = issued;
  if (refusal.kind === 'limit_reached') throw new Error(`the account already holds ${refusal.limit} admin keys`);
  throw new Error(refusal.kind === 'invalid_field' ? `${refusal.field}: ${refusal.message}` : refusal.kind);
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

/** An account or team by id, as the host's sysadmin names it. */
export async function teamById(store: Store, id: number): Promise<Managed<Team>> {
  const team = await store.teams.get(id);
  return team ? done(team) : notFound('team', `no account or team ${id}`);
}

/** The sending rate and plan the host's sysadmin sets on an account or team; a field left out keeps its value. */
export async function updateAccount(store: Store, id: number, fields: { limitPerSecond?: number; planType?: string }): Promise<Managed<Team>> {
  const team = await store.teams.update(id, fields);
  return team ? done(team) : notFound('team', `no account or team ${id}`);
}
