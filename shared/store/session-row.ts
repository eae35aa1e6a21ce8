// A dashboard session's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, rowDecoder, Text } from './decode.js';
import type { Session } from '../domain/user.js';

const SessionRow = Type.Object({
  id: Int,
  user_id: Int,
  token_hash: Text,
  user_agent: Text,
  address: Text,
  created_at: Text,
  last_seen_at: Text,
});

export const decodeSession = rowDecoder('session', SessionRow, (r): Session => ({
  id: r.id,
  userId: r.user_id,
  tokenHash: r.token_hash,
  userAgent: r.user_agent,
  address: r.address,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
}));
