// A suppression's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { SUPPRESSION_STATUSES, type Suppression } from '../domain/suppression.js';
import type { TeamSuppression } from './suppressions.js';

const SuppressionRow = Type.Object({
  email: Text,
  status: OneOf(SUPPRESSION_STATUSES),
  reason: Text,
  message_id: Nullable(Text),
  created_at: Text,
});

export const decodeSuppression = rowDecoder('suppression', SuppressionRow, (r): Suppression => ({
  email: r.email,
  status: r.status,
  reason: r.reason,
  messageId: r.message_id,
  createdAt: r.created_at,
}));

export const decodeEmail = rowDecoder('suppressed address', Type.Object({ email: Text }), (r) => r.email);

export const decodeTeamSuppression = rowDecoder('suppression', Type.Composite([SuppressionRow, Type.Object({ team_id: Int })]), (r): TeamSuppression => ({
  teamId: r.team_id,
  suppression: decodeSuppression(r),
}));

export const decodeKeyset = rowDecoder('suppression position', Type.Object({ id: Int, created_at: Text }), (r) => r);
