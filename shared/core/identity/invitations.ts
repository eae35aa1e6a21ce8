// Inviting dashboard users: an owner or admin offers a role on the account (or on one of its teams) to an
// email; Tern mails a link carrying a random token (only its sha256 is kept) that works once, until it expires
// (invitations.expiryDays), unless revoked or replaced by a newer invitation to the same email. Accepting it
// creates the user with the password they choose and signs them in, as a login does. A platform invitation's
// link (core/admin/invitations.ts) is accepted here too: it creates a new account and makes the user its owner.
import { randomBytes } from 'node:crypto';
import { mailTime } from '../email-templates.js';
import { isAccountRole, isOperator, type AccountRole, type AccountUser, type Session, type User } from '../../domain/user.js';
import { invitationState, type Invitation, type InvitationStatus } from '../../domain/invitation.js';
import { invitationGrant, type InvitationOffer, type PlatformInvitation } from '../../domain/platform-invitation.js';
import { accountIdOf, type Team } from '../../domain/team.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { Logger } from '../../log.js';
import type { SystemMail } from '../system-mail.js';
import { clip, isoAt, type StoreDeps } from './deps.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { granted, invalidField, refused, type Identified } from './refusals.js';
import { emailProblem, nameProblem } from './users.js';
import { hashToken, type ClientInfo, type Sessions } from './sessions.js';
import type { Nonces } from './nonces.js';

export interface InvitationRequest {
  email: string;
  /** Checked: owner, admin or viewer (an owner only on the account itself, and only invited by an owner). */
  role: string;
  /** One of the account's teams; absent: the inviter's own (the account, for a user of the account). */
  teamId?: number;
}

export interface SentInvitation {
  invitation: Invitation;
  /** The system message that carries the link; null when Tern could not mail it. */
  messageId: string | null;
  /** When it was not mailed (no usable system sender): the link, for the inviter to pass on, shown this once (only
   * its hash is kept), and why, in the inviter's words. Absent when the mail carries it. */
  unmailed?: { link: string; reason: string };
}

export interface ListedInvitation extends Invitation {
  state: InvitationStatus | 'expired';
}

export interface AcceptanceRequest {
  token: string;
  name: string;
  password: string;
  client: ClientInfo;
}

/** What a login gives: the new user, the session cookie's token (never stored), its session and nonce. */
export interface AcceptedInvitation {
  user: User;
  token: string;
  session: Session;
  nonce: string;
}

/** Where the invitee lands: the page that accepts the invitation. */
export const acceptLink = (dashboardUrl: string, token: string): string => `${dashboardUrl}/accept-invitation?token=${encodeURIComponent(token)}`;

/** Who the inviter reaches: their account, and the teams an invitation may name (one, for a team's user). */
interface Reach {
  account: Team;
  /** The team a user of one team is confined to; undefined for a user of the account. */
  onlyTeam?: number;
}

export class Invitations {
  constructor(
    private readonly d: StoreDeps,
    private readonly mail: SystemMail,
    private readonly sessions: Sessions,
    private readonly nonces: Nonces,
  ) {}

  /**
   * Checks the request, mails the link, then stores the invitation (replacing the open one to the same email).
   * When Tern has no usable system sender the invitation is stored all the same and its link handed to the
   * inviter (a first install works before the operator has chosen a sender); any other refusal (the per-recipient
   * limit) stores nothing and the open invitation (if any) stays.
   */
  async send(inviter: AccountUser, r: InvitationRequest, dashboardUrl: string, log: Logger): Promise<Identified<SentInvitation>> {
    const target = await this.checkedTarget(inviter, r);
    if (!target.ok) return target;
    const { account, team, usedElsewhere } = target.value;
    const token = randomBytes(32).toString('base64url');
    const expiresAt = isoAt(this.d.now() + this.d.config.invitations.expiryDays * 86_400_000);
    const link = acceptLink(dashboardUrl, token);
    const message = await this.mail.composeRequired('invitation', r.email, invitationValues({ inviter, account, team, role: r.role, link, expiresAt }));
    // An address another account's user or an operator has is answered as a new one (telling it apart would show
    // who uses Tern) but mailed nothing: its link could never be accepted anyway. When Tern cannot send mail at
    // all, the invitation is made all the same and its link handed to the inviter, for either kind of address.
    const sent = usedElsewhere ? await this.mail.withhold(message) : await this.mail.send(message, log);
    if (!sent.ok && sent.refusal.kind !== 'system_mail_unavailable') return refused(sent.refusal);
    const messageId = sent.ok ? sent.value.messageId : null;
    const notMailed = !sent.ok && sent.refusal.kind === 'system_mail_unavailable' ? sent.refusal.reason : null;
    const invitation = await this.d.store.invitations.create({
      accountId: account.id,
      teamId: team.id,
      email: r.email,
      role: r.role as AccountRole,
      tokenHash: hashToken(token),
      invitedBy: inviter.id,
      messageId,
      at: isoAt(this.d.now()),
      expiresAt,
    });
    if (notMailed !== null) {
      log.warn({ invitation: invitation.id, team: team.id, role: invitation.role, by: inviter.id }, 'invitation made without mail: its link is handed to the inviter');
      return granted({ invitation, messageId, unmailed: { link, reason: notMailed } });
    }
    log.info({ invitation: invitation.id, team: team.id, role: invitation.role, by: inviter.id, msg_id: messageId }, 'invitation sent');
    return granted({ invitation, messageId });
  }

  /** The invitations the caller manages, newest first, each with its state now. */
  async list(caller: AccountUser, page: PageRequest): Promise<Identified<PageOf<ListedInvitation>>> {
    const reach = await this.reach(caller);
    if (!reach.ok) return reach;
    const found = await this.d.store.invitations.list(reach.value.account.id, page, reach.value.onlyTeam);
    const now = this.d.now();
    return granted({ total: found.total, rows: found.rows.map((i) => ({ ...i, state: invitationState(i, now) })) });
  }

  /** Revokes an open invitation (expired ones included): its link stops working. */
  async revoke(caller: AccountUser, id: number, log: Logger): Promise<Identified<ListedInvitation>> {
    const reach = await this.reach(caller);
    if (!reach.ok) return reach;
    const { account, onlyTeam } = reach.value;
    if (!(await this.d.store.invitations.get(id, account.id, onlyTeam))) return refused({ kind: 'not_found', what: 'invitation', message: 'Invitation not found' });
    const revoked = await this.d.store.invitations.revoke(id, account.id, isoAt(this.d.now()));
    if (!revoked) return refused({ kind: 'invitation_invalid' });
    log.info({ invitation: id, by: caller.id }, 'invitation revoked');
    return granted({ ...revoked, state: invitationState(revoked, this.d.now()) });
  }

  /** What an open link's token stands for, an account's invitation or the platform's (the page shows whom it invites, to what). */
  async open(token: string): Promise<Identified<InvitationOffer>> {
    const hash = hashToken(token);
    const [toAccount, toPlatform] = await Promise.all([this.d.store.invitations.findByTokenHash(hash), this.d.store.platformInvitations.findByTokenHash(hash)]);
    const offer: InvitationOffer | undefined = toAccount
      ? { kind: 'account_user', invitation: toAccount }
      : toPlatform && { kind: 'new_account', invitation: toPlatform };
    const state = offer && invitationState(offer.invitation, this.d.now());
    if (!offer || (state !== 'open' && state !== 'expired')) return refused({ kind: 'invitation_invalid' });
    return state === 'expired' ? refused({ kind: 'invitation_expired' }) : granted(offer);
  }

  /**
   * Creates the invited user with the chosen name and password (with its new account, for a platform
   * invitation), closes the invitation, and starts a session.
   */
  async accept(r: AcceptanceRequest, log: Logger): Promise<Identified<AcceptedInvitation>> {
    const found = await this.open(r.token);
    if (!found.ok) return found;
    const offer = found.value;
    if (r.name.trim() === '') return invalidField('name', 'name must have 1 to 100 characters, not all spaces');
    const bad = nameProblem(r.name) ?? (passwordProblem(r.password) === undefined ? undefined : invalidField('password', passwordProblem(r.password)!));
    if (bad) return bad;
    if (await this.d.store.users.findByEmail(offer.invitation.email)) return refused({ kind: 'email_taken', field: 'email' });
    const at = isoAt(this.d.now());
    const passwordHash = await hashPassword(r.password);
    const accepted =
      offer.kind === 'account_user'
        ? await this.joinAccount(offer.invitation, r.name, passwordHash, at)
        : await this.openAccount(offer.invitation, r.name, passwordHash, at);
    if (!accepted.ok) return accepted;
    const { user, accountId } = accepted.value;
    const { token, session } = await this.sessions.start(user, r.client);
    // A sign-in like a login's: the auth log shows it.
    await this.d.store.authLog.record({
      accountId,
      userId: user.id,
      email: clip(user.email, 254),
      address: clip(r.client.address, 64),
      userAgent: clip(r.client.userAgent, 512),
      result: 'success',
      at,
    });
    log.info({ invitation: offer.invitation.id, kind: offer.kind, account: accountId, user: user.id, session: session.id }, 'invitation accepted');
    return granted({ user, token, session, nonce: this.nonces.nonceFor(session) });
  }

  /** An account's invitation: the user joins the account (or its team) with the invited role. */
  private async joinAccount(i: Invitation, name: string, passwordHash: string, at: string): Promise<Identified<{ user: User; accountId: number }>> {
    const newUser = { email: i.email, name, role: i.role, teamId: i.teamId, passwordHash, mustChangePassword: false };
    const accepted = await this.d.store.invitations.accept(i.id, newUser, at);
    if (typeof accepted === 'string') return acceptanceRefused(accepted);
    return granted({ user: accepted.user, accountId: i.accountId });
  }

  /** A platform invitation: a new account with the configured plan, region and rate, the user its owner. */
  private async openAccount(i: PlatformInvitation, name: string, passwordHash: string, at: string): Promise<Identified<{ user: User; accountId: number }>> {
    const a = this.d.config.accounts;
    const account = { planType: a.defaultPlan, backendRegion: a.defaultRegion, limitPerSecond: a.defaultLimitPerSecond };
    const accepted = await this.d.store.platformInvitations.accept(i.id, account, { name, passwordHash }, at, invitationGrant);
    if (typeof accepted === 'string') return acceptanceRefused(accepted);
    return granted({ user: accepted.user, accountId: accepted.account.id });
  }

  /** The caller's account and confinement; only owners and admins manage invitations. */
  private async reach(caller: AccountUser): Promise<Identified<Reach>> {
    if (caller.role === 'viewer') return refused({ kind: 'forbidden', need: 'write' });
    const own = await this.d.store.teams.get(caller.teamId);
    if (!own) return refused({ kind: 'not_found', what: 'team', message: 'Team not found' });
    if (own.parentId === null) return granted({ account: own });
    const account = await this.d.store.teams.get(own.parentId);
    if (!account) return refused({ kind: 'not_found', what: 'account', message: 'Account not found' });
    return granted({ account, onlyTeam: own.id });
  }

  /** The account and team an invitation request names, once every rule on role, team and email holds. */
  private async checkedTarget(inviter: AccountUser, r: InvitationRequest): Promise<Identified<{ account: Team; team: Team; usedElsewhere: boolean }>> {
    const reach = await this.reach(inviter);
    if (!reach.ok) return reach;
    const { account, onlyTeam } = reach.value;
    const teamId = r.teamId ?? onlyTeam ?? account.id;
    const team = teamId === account.id ? account : await this.d.store.teams.get(teamId);
    const reachable = team && (onlyTeam === undefined ? team.id === account.id || team.parentId === account.id : team.id === onlyTeam);
    if (!team || !reachable) return refused({ kind: 'not_found', what: 'team', message: `no team ${teamId} in this account` });
    if (!isAccountRole(r.role)) return invalidField('role', 'role must be owner, admin or viewer');
    if (r.role === 'owner' && team.id !== account.id) return invalidField('role', 'an owner belongs to the account, not to one of its teams');
    // Only an owner makes another owner.
    if (r.role === 'owner' && inviter.role !== 'owner') return refused({ kind: 'forbidden', need: 'owner' });
    const bad = emailProblem(r.email);
    if (bad) return bad;
    const holder = await this.d.store.users.findByEmail(r.email);
    if (holder && (await this.isMember(holder, account))) return refused({ kind: 'already_member', field: 'email' });
    return granted({ account, team, usedElsewhere: holder !== undefined });
  }

  /** Whether a user belongs to the account (to it or to one of its teams); an operator belongs to none. */
  private async isMember(user: User, account: Team): Promise<boolean> {
    if (isOperator(user)) return false;
    const team = user.teamId === account.id ? account : await this.d.store.teams.get(user.teamId);
    return team !== undefined && accountIdOf(team) === account.id;
  }
}

/** An acceptance the store could not make: the invitation closed meanwhile, or the email became a user's. */
const acceptanceRefused = (why: 'closed' | 'email_taken'): Identified<never> =>
  refused(why === 'closed' ? { kind: 'invitation_invalid' } : { kind: 'email_taken', field: 'email' });

interface InvitationContent {
  inviter: User;
  account: Team;
  team: Team;
  role: string;
  link: string;
  expiresAt: string;
}

/** The invitation mail's smartcodes: who invites, to what, with which role, the link and when it expires. */
function invitationValues(c: InvitationContent): Record<string, string> {
  return {
    'invitation.url': c.link,
    'invitation.expires_at': mailTime(c.expiresAt),
    'invitation.role': c.role,
    'inviter.name': c.inviter.name ? `${c.inviter.name} (${c.inviter.email})` : c.inviter.email,
    'team.name': c.team.id === c.account.id ? c.account.name : `${c.team.name} (a team of ${c.account.name})`,
    'account.name': c.account.name,
  };
}
