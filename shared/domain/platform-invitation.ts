// A platform invitation: an operator offers a NEW client account to an email. Its link works once, until it
// expires, unless revoked or replaced by a newer one to the same email; accepting it creates the account (with
// the credits the operator set) and its owner. Same states as an account's invitation (domain/invitation.ts).
import type { Invitation, InvitationStatus } from './invitation.js';
import type { NewCreditEntry } from './credits.js';

export interface PlatformInvitation {
  id: number;
  /** As the operator typed it; the owner is created with it. */
  email: string;
  /** The name the new account gets. */
  accountName: string;
  /** Granted to the new account when it is created (0: none). */
  credits: number;
  status: InvitationStatus;
  /** The operator who sent it (null once that user is gone). */
  invitedBy: number | null;
  /** The system message that carried the link. */
  messageId: string | null;
  /** The account and owner the acceptance created. */
  accountId: number | null;
  userId: number | null;
  createdAt: string;
  expiresAt: string;
  /** When it was accepted, revoked or replaced. */
  closedAt: string | null;
}

/** What a link stands for: a role on an existing account, or a new account of one's own. */
export type InvitationOffer = { kind: 'account_user'; invitation: Invitation } | { kind: 'new_account'; invitation: PlatformInvitation };

/**
 * What accepting the invitation grants the account it creates: the invitation's credits, a grant by the inviting
 * operator (its id kept even once that user is gone: the audit log names it); nothing when it carries none.
 */
export function invitationGrant(invitation: PlatformInvitation, accountId: number): NewCreditEntry | null {
  if (invitation.credits <= 0) return null;
  return {
    payerId: accountId,
    kind: 'grant',
    amount: invitation.credits,
    actor: { kind: 'operator', id: invitation.invitedBy === null ? null : String(invitation.invitedBy) },
    reference: `platform_invitation:${invitation.id}`,
    reason: 'credits of the platform invitation',
  };
}
