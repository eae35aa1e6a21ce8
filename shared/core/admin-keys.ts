// An account's admin keys: issued with scopes fixed for their life (known scopes, each once, at most
// limits.adminKeysPerAccount live keys per account, counted by the store in the insert itself), listed masked,
// revoked (every process drops the key through the key cache). The CLI, first start and the dashboard all issue
// them through issueAdminKey; a dashboard user must moreover be the owner, acting on the main account.
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import type { Config } from '../config.js';
import type { KeyCache } from '../runtime/key-cache.js';
import { keyNameProblem, type KeyRecord } from '../domain/key-record.js';
import type { Store } from '../store/index.js';
import { accountIdOf, type Team } from '../domain/team.js';
import { roleAllows, type User } from '../domain/user.js';
import { generateKey, hashKey, keyEnds } from '../api-key.js';
import { isScope, SCOPES, type Scope } from '../scopes.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';
import type { CreatedKey } from './sending-keys.js';

export interface AdminKeyDeps {
  store: Store;
  config: Config;
  redis: Redis;
  keyCache: KeyCache;
}

/** The scopes asked for, or why they cannot be granted: an unknown one, one given twice. (No scope at all is a
 * key that reads only /v2/info; the dashboard's form asks for at least one.) */
function scopesOf(asked: readonly string[]): Managed<Scope[]> {
  const invalid = (message: string) => refuse<Scope[]>({ kind: 'invalid_field', field: 'scopes', message });
  const unknown = asked.filter((s) => !isScope(s));
  if (unknown.length) return invalid(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  if (new Set(asked).size !== asked.length) return invalid('a scope is given more than once');
  return done(asked as Scope[]);
}

/** A new admin key held by `holder` (an account, or for the operator one of its teams); its value shown once. */
export async function issueAdminKey(
  d: Pick<AdminKeyDeps, 'store' | 'config'>,
  holder: Team,
  o: { name: string; scopes: readonly string[] },
  log: Logger,
): Promise<Managed<CreatedKey>> {
  const named = keyNameProblem(o.name);
  if ('problem' in named) return refuse({ kind: 'invalid_field', field: 'name', message: named.problem });
  const name = named.name;
  const scopes = scopesOf(o.scopes);
  if (!scopes.ok) return scopes;
  const value = generateKey('admin');
  const { start, end } = keyEnds(value);
  const limit = d.config.limits.adminKeysPerAccount;
  const accountId = accountIdOf(holder);
  const key = await d.store.keys.createAdmin({ teamId: holder.id, accountId, title: name, scopes: scopes.value, hash: hashKey(value), start, end }, limit);
  if (key === 'limit_reached') return refuse({ kind: 'limit_reached', what: 'admin_keys', limit });
  log.info({ key: key.id, team: holder.id, scopes: key.scopes }, 'admin key created');
  return done({ key, value });
}

export class AdminKeys {
  constructor(private readonly d: AdminKeyDeps) {}

  /** Admin keys are the owner's to make and revoke, and only on the main account (not a team acted on). */
  private ownerOnMainAccount(user: User, acting: Team): Managed<void> {
    if (!roleAllows(user.role, 'owner')) return refuse({ kind: 'forbidden', message: 'Only the account owner can create or revoke admin keys.' });
    if (acting.parentId !== null) return refuse({ kind: 'forbidden', message: 'Admin keys belong to the main account, not to one of its teams.' });
    return done(undefined);
  }

  async issueBy(user: User, acting: Team, o: { name: string; scopes: readonly string[] }, log: Logger): Promise<Managed<CreatedKey>> {
    const allowed = this.ownerOnMainAccount(user, acting);
    return allowed.ok ? issueAdminKey(this.d, acting, o, log) : allowed;
  }

  /** The live admin keys seen from a team: on an account every key of it and its teams (the limit counts them all), on a team its own. */
  async list(team: Team): Promise<KeyRecord[]> {
    const keys = await this.d.store.keys.listAdmin(accountIdOf(team));
    return team.parentId === null ? keys : keys.filter((k) => k.teamId === team.id);
  }

  async revokeBy(user: User, acting: Team, id: number, log: Logger): Promise<Managed<void>> {
    const allowed = this.ownerOnMainAccount(user, acting);
    if (!allowed.ok) return allowed;
    const key = (await this.list(acting)).find((k) => k.id === id);
    const hash = key && (await this.d.store.keys.revoke(key.id, 'admin', key.teamId));
    if (!hash) return notFound('admin_key', 'Admin key not found');
    await this.d.keyCache.revoked(this.d.redis, [hash], log);
    log.info({ key: id, team: acting.id }, 'admin key revoked');
    return done(undefined);
  }
}
