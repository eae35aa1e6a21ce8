// An invitation to the dashboard: a role on an account or one of its teams offered to an email, by a link
// that works once, until it expires, unless it is revoked or replaced by a newer one to the same email.
import type { AccountRole } from './user.js';

/** As stored. `open` invitations past their expiry are shown as `expired` (see invitationState). */
export const INVITATION_STATUSES = ['open', 'accepted', 'revoked', 'replaced'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export interface Invitation {
  id: number;
  /** The account the invitation belongs to (where it is listed and revoked). */
  accountId: number;
  /** The team the new user will belong to: the account itself, or one of its teams. */
  teamId: number;
  /** As the inviter typed it; the user is created with it. */
  email: string;
  role: AccountRole;
  status: InvitationStatus;
  /** The user who sent it (null once that user is gone). */
  invitedBy: number | null;
  /** The system message that carried the link. */
  messageId: string | null;
  /** The user the acceptance created. */
  userId: number | null;
  createdAt: string;
  expiresAt: string;
  /** When it was accepted, revoked or replaced. */
  closedAt: string | null;
}

/** What an invitation (of either kind) is at `nowMs`: its stored status, or `expired` for an open one past its expiry. */
export const invitationState = (i: Pick<Invitation, 'status' | 'expiresAt'>, nowMs: number): InvitationStatus | 'expired' =>
  i.status === 'open' && Date.parse(i.expiresAt) <= nowMs ? 'expired' : i.status;
