// A platform invitation's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { INVITATION_STATUSES } from '../domain/invitation.js';
import type { PlatformInvitation } from '../domain/platform-invitation.js';

export const decodeInvitation = rowDecoder(
  'platform invitation',
  Type.Object({
    id: Int,
    email: Text,
    account_name: Text,
    credits: Int,
    status: OneOf(INVITATION_STATUSES),
    invited_by: Nullable(Int),
    message_id: Nullable(Text),
    account_id: Nullable(Int),
    user_id: Nullable(Int),
    created_at: Text,
    expires_at: Text,
    closed_at: Nullable(Text),
  }),
  (r): PlatformInvitation => ({
    id: r.id,
    email: r.email,
    accountName: r.account_name,
    credits: r.credits,
    status: r.status,
    invitedBy: r.invited_by,
    messageId: r.message_id,
    accountId: r.account_id,
    userId: r.user_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    closedAt: r.closed_at,
  }),
);
