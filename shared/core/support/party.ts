// Who takes part in a ticket: a customer (an account's user, acting on one of its account's teams) or an agent
// (a platform operator, who sees every team's tickets). What each may do is decided here, once.
import type { Team } from '../../domain/team.js';
import { roleAllows, type AccountUser, type Operator } from '../../domain/user.js';
import type { Ticket } from '../../domain/support.js';
import { done, notFound, refuse, type Managed } from '../management-refusals.js';

export type SupportParty = { kind: 'customer'; user: AccountUser; team: Team } | { kind: 'agent'; operator: Operator };

/** The user acting, whichever side it is on. */
export const userIdOf = (party: SupportParty): number => (party.kind === 'customer' ? party.user.id : party.operator.id);

/** The team whose tickets the party reaches: the customer's; undefined for an agent (every team's). */
export const teamScopeOf = (party: SupportParty): number | undefined => (party.kind === 'customer' ? party.team.id : undefined);

/** A customer changes tickets only with a role that may change the team (owner, admin); a viewer reads them. */
export function mayChange(party: SupportParty): Managed<void> {
  if (party.kind === 'customer' && !roleAllows(party.user.role, 'write')) {
    return refuse({ kind: 'forbidden', message: "Sorry, you are not allowed to do that: a viewer reads the team's tickets, an owner or admin writes them." });
  }
  return done(undefined);
}

/** Only an account's users open tickets and vote on answers; an operator answers them. */
export function customerOnly(party: SupportParty, what: string): Managed<Extract<SupportParty, { kind: 'customer' }>> {
  if (party.kind !== 'customer') return refuse({ kind: 'forbidden', message: `Sorry, you are not allowed to do that: ${what} is an account user's, not an operator's.` });
  const allowed = mayChange(party);
  return allowed.ok ? done(party) : allowed;
}

export const ticketNotFound = <T = never>(): Managed<T> => notFound('support_ticket', 'Invalid ticket ID.');

/** The ticket when the party may see it (its team's, or any for an agent); another team's answers as missing. */
export const visibleTo = (party: SupportParty, ticket: Ticket | undefined): ticket is Ticket =>
  ticket !== undefined && (party.kind === 'agent' || ticket.teamId === party.team.id);
