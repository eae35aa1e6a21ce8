// The only place a team's status changes. A team suspended by the platform is reactivated only by the
// platform (operator CLI or policy); its owner cannot lift it.
export type TeamStatus = 'active' | 'suspended';
export type SuspendedBy = 'account' | 'platform';
export type Actor = SuspendedBy;

export interface TeamState {
  status: TeamStatus;
  suspendedBy: SuspendedBy | null;
}

export type TeamTransition = { ok: true; state: TeamState } | { ok: false; refusal: 'suspended_by_platform' };

export function transitionTeam(current: TeamState, wanted: TeamStatus, actor: Actor): TeamTransition {
  if (wanted === 'suspended') {
    // A platform suspension stands over an owner's one; an owner suspending again changes nothing.
    if (current.status === 'suspended' && (current.suspendedBy === 'platform' || actor === 'account')) {
      return { ok: true, state: current };
    }
    return { ok: true, state: { status: 'suspended', suspendedBy: actor } };
  }
  if (current.status === 'suspended' && current.suspendedBy === 'platform' && actor !== 'platform') {
    return { ok: false, refusal: 'suspended_by_platform' };
  }
  return { ok: true, state: { status: 'active', suspendedBy: null } };
}
