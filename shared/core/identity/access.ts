// What a dashboard user reaches: the team it acts on (its own, or for a user of an account one of the account's
// teams, chosen with X-Account-Id) and what its role permits. Another account's team answers as a missing one.
// And the forced password change: while a user's password is a one-time one, its sessions only lead to the change.
import { roleAllows, type AccountUser, type Permission, type User } from '../../domain/user.js';
import type { Team } from '../../domain/team.js';
import type { Store } from '../../store/index.js';
import { done, notFound, type Managed } from '../management-refusals.js';
import { granted, refused, type Identified } from './refusals.js';

/**
 * What a signed-in session may still do while the user's password must change (the one-time password of the
 * first start, `ternmail user create` or `reset-password`): log out, read its profile, change the password.
 * Public endpoints (log in, the REST index) need nobody, so they are not gated either.
 */
export type PasswordChangeStep = 'log_out' | 'read_profile' | 'change_password';

/** How a dashboard caller proved who it is. */
export type Credential = 'session' | 'application_password';

export class Access {
  constructor(private readonly d: { store: Store }) {}

  /** The team `user` acts on: its own without `requestedTeamId`, else the requested one when within reach. */
  async actingTeam(user: AccountUser, requestedTeamId?: number): Promise<Managed<Team>> {
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

  /**
   * Refuses anything but the steps to the change while the password must change. Only sessions are gated: an
   * application password was made by the user before the password was reset (none can be made while the
   * change is pending) and, as WordPress, a password reset leaves them working; see docs/decisions.md.
   */
  passwordChangeGate(user: User, via: Credential, step: PasswordChangeStep | undefined): Identified<void> {
    if (!user.mustChangePassword || via !== 'session' || step !== undefined) return granted(undefined);
    return refused({ kind: 'password_change_required' });
  }
}
