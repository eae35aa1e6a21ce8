// The invitations repository: open invitations (one per account and email), found by their token's hash,
// listed per account or team, revoked, and accepted together with the user they create.
import type { Invitation } from '../domain/invitation.js';
import type { User, AccountRole } from '../domain/user.js';
import type { NewUser } from './users.js';
import type { PageOf, PageRequest } from './paging.js';

export interface NewInvitation {
  accountId: number;
  teamId: number;
  email: string;
  role: AccountRole;
  /** sha256 of the link's token, hex. */
  tokenHash: string;
  invitedBy: number | null;
  messageId: string | null;
  /** ISO times. */
  at: string;
  expiresAt: string;
}

export type Acceptance = { user: User; invitation: Invitation } | 'closed' | 'email_taken';

export interface InvitationRepository {
  /** Stores an open invitation; the account's open one to the same email (any case) is marked replaced. */
  create(i: NewInvitation): Promise<Invitation>;
  findByTokenHash(tokenHash: string): Promise<Invitation | undefined>;
  /** An invitation of the account (of its team `teamId` only, when given). */
  get(id: number, accountId: number, teamId?: number): Promise<Invitation | undefined>;
  /** The account's invitations (its team `teamId`'s only, when given), newest first. */
  list(accountId: number, page: PageRequest, teamId?: number): Promise<PageOf<Invitation>>;
  /** Marks an open invitation revoked; undefined when it is not open (or not the account's). */
  revoke(id: number, accountId: number, at: string): Promise<Invitation | undefined>;
  /**
   * In one transaction: the invitation, still open and not expired at `at`, is marked accepted and the user
   * created. 'closed' when it no longer is open (accepted meanwhile, revoked, replaced, expired);
   * 'email_taken' when a user has that email (nothing changes).
   */
  accept(id: number, user: NewUser, at: string): Promise<Acceptance>;
}
