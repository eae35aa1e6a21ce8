// A team invitation's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { ACCOUNT_ROLES } from '../domain/user.js';
import { INVITATION_STATUSES, type Invitation } from '../domain/invitation.js';

const InvitationRow = Type.Object({
  id: Int,
  account_id: Int,
  team_id: Int,
  email: Text,
  role: OneOf(ACCOUNT_ROLES),
  status: OneOf(INVITATION_STATUSES),
  invited_by: Nullable(Int),
  message_id: Nullable(Text),
  user_id: Nullable(Int),
  created_at: Text,
  expires_at: Text,
  closed_at: Nullable(Text),
});

export const decodeInvitation = rowDecoder('invitation', InvitationRow, (r): Invitation => ({
  id: r.id,
  accountId: r.account_id,
  teamId: r.team_id,
  email: r.email,
  role: r.role,
  status: r.status,
  invitedBy: r.invited_by,
  messageId: r.message_id,
  userId: r.user_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  closedAt: r.closed_at,
}));
