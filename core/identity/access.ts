// What a dashboard user reaches: the team it acts on (its own, or for a user of an account one of the account's
// teams, chosen with X-Account-Id) and what its role permits. Another account's team answers as a missing one.
import { roleAllows, type Permission, type User } from '../../domain/user.js';
import type { Team } from '../../domain/team.js';
import type { Store } from '../../store/index.js';
import { done, notFound, type Managed } from '../management-refusals.js';
import { granted, refused, type Identified } from './refusals.js';

export class Access {
  constructor(private readonly d: { store: Store }) {}

  /** The team `user` acts on: its own without `requestedTeamId`, else the requested one when within reach. */
  async actingTeam(user: User, requestedTeamId?: number): Promise<Managed<Team>> {
    const own = await this.d.store.teams.get(user.teamId);
    if (!own) return notFound('team', 'Team not found');
    if (requestedTeamId === undefined || requestedTeamId === own.id) return done(own);
    const team = await this.d.store.teams.get(requestedTeamId);
    // Only a user of an account reaches further, and only to that account's own teams.
    if (!team || own.parentId !== null || team.parentId !== own.id) return notFound('team', 'Team not found');
    return done(team);
  }

  /** 'read': any role; 'write': owner or admin; 'owner': the owner only. */
  allows(user: User, need: Permission): boolean {
    return roleAllows(user.role, need);
  }

  permit(user: User, need: Permission): Identified<void> {
    return this.allows(user, need) ? granted(undefined) : refused({ kind: 'forbidden', need });
  }
}
