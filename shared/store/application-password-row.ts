// An application password's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, rowDecoder, Text } from './decode.js';
import type { ApplicationPassword } from '../domain/user.js';

const PasswordRow = Type.Object({
  uuid: Text,
  user_id: Int,
  name: Text,
  app_id: Nullable(Text),
  created_at: Text,
  last_used_at: Nullable(Text),
  last_ip: Nullable(Text),
});

export const decodePassword = rowDecoder('application password', PasswordRow, (r): ApplicationPassword => ({
  uuid: r.uuid,
  userId: r.user_id,
  name: r.name,
  appId: r.app_id,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  lastIp: r.last_ip,
}));
