// A password reset's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, rowDecoder, Text } from './decode.js';
import type { PasswordReset } from '../domain/password-reset.js';

const PasswordResetRow = Type.Object({ user_id: Int, created_at: Text, expires_at: Text, used_at: Nullable(Text) });

export const decodeReset = rowDecoder('password reset', PasswordResetRow, (r): PasswordReset => ({
  userId: r.user_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
}));
