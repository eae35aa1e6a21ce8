// The platform invitations repository: operators' invitations to open a new client account (one open per
// email), found by their token's hash, listed across the platform, revoked, and accepted together with the
// account, its credits and its owner. An operator's invitation and revocation commit with their audit entry.
import type { PlatformInvitation } from '../domain/platform-invitation.js';
import type { User } from '../domain/user.js';
import type { Team } from '../domain/team.js';
import type { NewCreditEntry } from '../domain/credits.js';
import type { NewAccount } from './teams.js';
import type { NewAuditEntry } from './audit-log.js';
import type { PageOf, PageRequest } from './paging.js';

export interface NewPlatformInvitation {
  email: string;
  accountName: string;
  credits: number;
  /** sha256 of the link's token, hex. */
  tokenHash: string;
  invitedBy: number;
  messageId: string | null;
  /** ISO times. */
  at: string;
  expiresAt: string;
}

/** The owner the acceptance creates: the invitation's email, with the name and password they chose. */
export interface NewOwner {
  name: string;
  passwordHash: string;
}

/** The account the acceptance creates; its credits come from the ledger entry the acceptance's `grant` makes. */
export type AcceptedAccount = Omit<NewAccount, 'name' | 'credits'>;

/** The ledger entry an acceptance writes for the account it created (domain/platform-invitation.ts invitationGrant). */
export type GrantOf = (invitation: PlatformInvitation, accountId: number) => NewCreditEntry | null;

export type PlatformAcceptance = { user: User; account: Team; invitation: PlatformInvitation } | 'closed' | 'email_taken';

export interface PlatformInvitationRepository {
  /**
   * Stores an open invitation, the open one to the same email (any case) marked replaced first, and the audit
   * entry `audit` builds from both, in one transaction.
   */
  create(i: NewPlatformInvitation, audit: (made: PlatformInvitation, replaced: PlatformInvitation | undefined) => NewAuditEntry): Promise<PlatformInvitation>;
  findByTokenHash(tokenHash: string): Promise<PlatformInvitation | undefined>;
  get(id: number): Promise<PlatformInvitation | undefined>;
  /** Every platform invitation, newest first. */
  list(page: PageRequest): Promise<PageOf<PlatformInvitation>>;
  /** Marks an open invitation revoked, with its audit entry, in one transaction; undefined when it is not open. */
  revoke(id: number, at: string, audit: (revoked: PlatformInvitation) => NewAuditEntry): Promise<PlatformInvitation | undefined>;
  /**
   * In one transaction: the invitation, still open and not expired at `at`, is marked accepted; the account is
   * created, credited with the ledger entry `grant` makes of the invitation and the new account's id (none when
   * it answers null), and given its owner. 'closed' when it no longer is open; 'email_taken' when a user has that
   * email (nothing changes).
   */
  accept(id: number, account: AcceptedAccount, owner: NewOwner, at: string, grant: GrantOf): Promise<PlatformAcceptance>;
}
