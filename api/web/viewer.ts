// Who views a signed-in page: a user of an account, acting on one of the teams it reaches (its own, or one of
// its account's teams picked with the team switcher), or a platform operator, who acts on no team. Read from
// the session cookie; the team picked is remembered in a cookie of its own and, on a form, sent with the form,
// so an action applies to the team the page showed even if another tab switched since.
import { parse, serialize } from 'cookie';
import { isOperator, type AccountUser, type Operator, type Permission, type Session } from '../../shared/domain/user.js';
import type { Team } from '../../shared/domain/team.js';
import type { AppContext } from '../pipeline/context.js';
import { headerOf } from '../pipeline/credentials.js';
import { REST_ACTION } from '../../shared/core/identity/nonces.js';
import { signedInUser, type PageRequest } from './request.js';

/** The form nonce's action (WordPress: one action per kind of form; the dashboard's pages share one). */
export const PAGE_ACTION = 'tern_page';
export const TEAM_COOKIE = 'tern_team';
/** The hidden field every form carries: the team the page acted on. */
export const TEAM_FIELD = '_team';
export const NONCE_FIELD = '_wpnonce';

interface ViewerFields {
  session: Session;
  /** The nonce forms carry (_wpnonce). */
  formNonce: string;
  /** The nonce the page's scripts send to the REST routes (X-WP-Nonce). */
  restNonce: string;
}

export interface AccountViewer extends ViewerFields {
  kind: 'account';
  user: AccountUser;
  /** The team the page acts on. */
  acting: Team;
  /** Every team the user may switch to (its own first); one for a user of a child team or an account without teams. */
  teams: readonly Team[];
}

export interface OperatorViewer extends ViewerFields {
  kind: 'operator';
  user: Operator;
}

export type Viewer = AccountViewer | OperatorViewer;

/** A team id as digits; anything else is no team. */
const teamIdOf = (value: string | undefined): number | undefined => (value && /^\d{1,15}$/.test(value) ? Number(value) : undefined);

export const pickedTeam = (r: PageRequest): number | undefined => {
  const header = headerOf(r.req, 'cookie');
  return teamIdOf(header ? parse(header)[TEAM_COOKIE] : undefined);
};

/** The cookie remembering the team picked (path /, the session's lifetime, not readable by scripts). */
export const teamCookie = (teamId: number, secure: boolean): string => serialize(TEAM_COOKIE, String(teamId), { httpOnly: true, sameSite: 'lax', secure, path: '/' });

/**
 * The viewer of a request; undefined without a live session. `requestedTeam`: the team asked for (the form's
 * field, or the cookie's); one out of reach is 'not_found' for a form and the user's own team for a cookie.
 */
export async function viewerOf(ctx: AppContext, r: PageRequest, requestedTeam: { id: number | undefined; strict: boolean }): Promise<Viewer | 'not_found' | undefined> {
  const me = await signedInUser(ctx, r);
  if (!me) return undefined;
  const nonces = { formNonce: ctx.core.nonces.nonceFor(me.session, PAGE_ACTION), restNonce: ctx.core.nonces.nonceFor(me.session, REST_ACTION) };
  if (isOperator(me.user)) return { kind: 'operator', user: me.user, session: me.session, ...nonces };
  const own = await ctx.core.access.actingTeam(me.user);
  if (!own.ok) return undefined;
  let acting = own.value;
  if (requestedTeam.id !== undefined && requestedTeam.id !== own.value.id) {
    const asked = await ctx.core.access.actingTeam(me.user, requestedTeam.id);
    if (asked.ok) acting = asked.value;
    else if (requestedTeam.strict) return 'not_found';
  }
  const teams = [own.value, ...(await ctx.core.teams.children(own.value))];
  return { kind: 'account', user: me.user, session: me.session, acting, teams, ...nonces };
}

/** What the viewer's role allows (the same rule the REST routes and the core apply). */
export const viewerMay = (ctx: AppContext, v: Viewer, need: Permission): boolean => ctx.core.access.allows(v.user, need);
