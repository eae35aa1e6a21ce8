// Who calls the dashboard, as WordPress decides it: HTTP Basic with an application password (no nonce), or the
// session cookie WITH its nonce (X-WP-Nonce or _wpnonce) — a cookie without one authenticates nobody, a wrong
// one is refused (rest_cookie_invalid_nonce). Then the team acted on: the user's own, or with X-Account-Id one
// of its account's teams (another account's answers as a missing team); a platform operator acts on none. Every
// cookie answer carries a fresh nonce.
import { isOperator, roleAllows, type AccountUser, type Operator, type Session, type User } from '../../../shared/domain/user.js';
import { accountIdOf, type Team } from '../../../shared/domain/team.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import type { DashboardAuth } from './group.js';
import { basicCredentials, nonceOf, sessionToken } from '../../pipeline/credentials.js';
import { dashboardError, forbidden, invalidNonce, MESSAGES } from '../../pipeline/dashboard-errors.js';
import { invalidParam, valueOf } from '../../pipeline/refusal-errors.js';
import { identified } from '../../pipeline/identity-errors.js';
import { dashboardErrorForIdentity } from '../../pipeline/identity-errors.js';

interface CallerFields {
  readonly via: 'session' | 'application_password';
  /** The cookie's session and the fresh nonce each answer carries, when the request came with one. */
  readonly session?: Session;
  readonly nonce?: string;
}

/** A user of an account, acting on one of its teams. */
export interface AccountCaller extends CallerFields {
  readonly kind: 'account';
  readonly user: AccountUser;
  /** The team the request acts on. */
  readonly acting: Team;
}

/** A platform operator: it acts on no team of its own (the admin routes name the team they act on). */
export interface OperatorCaller extends CallerFields {
  readonly kind: 'operator';
  readonly user: Operator;
}

export type DashboardCaller = AccountCaller | OperatorCaller;

const TEAM_HEADER = 'x-account-id';

/** X-Account-Id as a team id; absent is undefined, anything but digits is refused. */
function requestedTeam(req: Pick<Incoming, 'headers'>): number | undefined {
  const raw = req.headers[TEAM_HEADER];
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (!/^\d{1,15}$/.test(text)) throw invalidParam('X-Account-Id', 'rest_invalid_param', 'X-Account-Id must be the id of a team (digits).');
  return Number(text);
}

/** The caller a user makes: an operator acts on no team, so X-Account-Id is not read for one. */
async function callerOf(ctx: AppContext, req: Incoming, user: User, session?: Session): Promise<DashboardCaller> {
  const proof = session ? { via: 'session' as const, session, nonce: ctx.core.nonces.nonceFor(session) } : { via: 'application_password' as const };
  if (isOperator(user)) return { kind: 'operator', user, ...proof };
  const acting = valueOf(await ctx.core.access.actingTeam(user, requestedTeam(req)));
  return { kind: 'account', user, acting, ...proof };
}

async function byApplicationPassword(ctx: AppContext, req: Incoming, email: string, password: string): Promise<DashboardCaller> {
  const found = await ctx.core.applicationPasswords.authenticate(email, password, req.address);
  // WordPress's answer for any Basic credentials it refuses; which part was wrong is not told. Right credentials
  // of an account that turned application passwords off are told so (as WordPress says application_passwords_disabled).
  if (!found.ok) {
    throw found.refusal.kind === 'application_passwords_disabled'
      ? dashboardErrorForIdentity(found.refusal)
      : dashboardError('incorrect_password', MESSAGES.incorrect_password);
  }
  return callerOf(ctx, req, found.value.user);
}

async function bySession(ctx: AppContext, req: Incoming, token: string, nonce: string): Promise<DashboardCaller | undefined> {
  const resumed = await ctx.core.sessions.resume(token);
  if (!resumed.ok) return undefined;
  if (ctx.core.nonces.verifyNonce(resumed.session, nonce) !== 'valid') throw invalidNonce();
  return callerOf(ctx, req, resumed.user, resumed.session);
}

export const dashboardAuthentication: DashboardAuth<DashboardCaller> = {
  async authenticate(ctx, req) {
    const basic = basicCredentials(req);
    if (basic) return byApplicationPassword(ctx, req, basic.email, basic.password);
    const token = sessionToken(req);
    const nonce = nonceOf(req);
    // As WordPress: without a nonce the cookie is ignored (a form on another site cannot ride on it).
    return token && nonce ? bySession(ctx, req, token, nonce) : undefined;
  },
  teamOf: (caller) => (caller.kind === 'account' ? caller.acting.id : undefined),
  // An operator's changes count against no account's bucket: they are not the team's traffic (an operator
  // suspending a team must not use up, or be blocked by, that team's allowance) and each is in the audit log.
  accountOf: (caller) => (caller.kind === 'account' ? accountIdOf(caller.acting) : undefined),
  permits: (caller, permission) => roleAllows(caller.user.role, permission),
  answerHeaders: (caller): Record<string, string> => (caller.nonce ? { 'X-WP-Nonce': caller.nonce } : {}),
  admits: (ctx, caller, endpoint) => identified(ctx.core.access.passwordChangeGate(caller.user, caller.via, endpoint.passwordChangeStep)),
  // A batch item's own X-Account-Id is read as the same request's alone would be: the same user, the same rule
  // for which teams it may act on; without one the item acts on the batch's team.
  async forItem(ctx, caller, req) {
    const requested = requestedTeam(req);
    if (caller.kind === 'operator' || requested === undefined) return caller;
    return { ...caller, acting: valueOf(await ctx.core.access.actingTeam(caller.user, requested)) };
  },
};

/** Any signed-in caller, account user or operator: for the `self` endpoints (a user's own profile and passwords). */
export function signedInUser(caller: DashboardCaller | undefined): DashboardCaller {
  if (!caller) throw forbidden(true);
  return caller;
}

/**
 * The caller of an account endpoint: an account user. An operator is no member of any account, so it is
 * refused (the permission check refuses it first; this keeps the handlers' type an account caller).
 */
export function signedIn(caller: DashboardCaller | undefined): AccountCaller {
  const known = signedInUser(caller);
  if (known.kind !== 'account') throw forbidden(false);
  return known;
}

/** The caller of an admin endpoint: a platform operator; anyone else is refused. */
export function operatorOf(caller: DashboardCaller | undefined): OperatorCaller {
  const known = signedInUser(caller);
  if (known.kind !== 'operator') throw forbidden(false);
  return known;
}
