// An account's child teams: created by the account only, renamed, suspended and reactivated by their
// owner (a platform suspension stands: only the platform lifts it). Credits stay pooled at the account.
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { TeamStatus } from '../domain/team-state.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export interface TeamDeps {
  config: Config;
  store: Store;
}

/** The team owning a key, the pooled balance, and the child teams when the owner is an account. */
export interface TeamOverview {
  owner: Team;
  /** The pooled balance, shared by every team. */
  balance: number;
  teams: Team[];
}

export class Teams {
  constructor(private readonly d: TeamDeps) {}

  /** The team owning the key and, for an account, its child teams. */
  async overview(owner: Team): Promise<TeamOverview> {
    const teams = owner.parentId === null ? await this.d.store.teams.children(owner.id) : [];
    return { owner, balance: await this.d.store.teams.pooledBalance(owner), teams };
  }

  async create(owner: Team, rawName: string, log: Logger): Promise<Managed<Team>> {
    if (owner.parentId !== null) return refuse({ kind: 'not_parent_account' });
    const name = teamName(rawName);
    if (!name.ok) return name;
    const limit = this.d.config.limits.teamsPerAccount;
    const team = await this.d.store.teams.createTeam(owner, name.value, limit);
    if (team === 'limit_reached') return refuse({ kind: 'limit_reached', what: 'teams', limit, field: 'name' });
    log.info({ team: team.id, parent: owner.id }, 'team created');
    return done(team);
  }

  /** Renames a team of the account, and moves its status (as its owner). */
  async update(owner: Team, id: number, change: { name?: string; status?: TeamStatus }, log: Logger): Promise<Managed<Team>> {
    const team = await this.d.store.teams.get(id);
    if (!team || owner.parentId !== null || team.parentId !== owner.id) return notFound('team', 'Team not found');
    const name = change.name === undefined ? undefined : teamName(change.name);
    if (name && !name.ok) return name;
    if (change.status) {
      const moved = await this.d.store.teams.changeStatus(team.id, change.status, 'account');
      if (!moved.ok && moved.refusal === 'suspended_by_platform') return refuse({ kind: 'suspended_by_platform', teamId: team.id });
      if (!moved.ok) return notFound('team', 'Team not found');
    }
    if (name) await this.d.store.teams.rename(team.id, name.value);
    const updated = (await this.d.store.teams.get(team.id))!;
    log.info({ team: team.id, status: updated.status, by: 'account' }, 'team updated');
    return done(updated);
  }
}

/** Surrounding spaces are not part of a name; what is left must still have 2 to 100 characters. */
function teamName(raw: string): Managed<string> {
  const name = raw.trim();
  if (name.length < 2) return refuse({ kind: 'invalid_field', field: 'name', message: 'name must have 2 to 100 characters' });
  return done(name);
}
