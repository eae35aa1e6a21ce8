// An audit log entry's row as both engines store it (snapshots as JSON text: the same columns in SQLite and
// PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { AUDIT_ACTIONS, AUDIT_TARGET_KINDS, type AuditEntry, type JsonValue } from '../domain/audit-log.js';

/** Any JSON value: what a snapshot may hold. */
const Json = Type.Recursive((Self) => Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(Self), Type.Record(Type.String(), Self)]));

const decodeSnapshot = jsonDecoder('audit snapshot', Json);
const snapshotOf = (text: string | null): JsonValue | null => (text === null ? null : decodeSnapshot(text));

const AuditRow = Type.Object({
  id: Int,
  operator_id: Nullable(Int),
  operator_email: Text,
  action: OneOf(AUDIT_ACTIONS),
  target_kind: OneOf(AUDIT_TARGET_KINDS),
  target_id: Text,
  before_json: Nullable(Text),
  after_json: Nullable(Text),
  reason: Text,
  at: Text,
});

export const decodeEntry = rowDecoder('audit entry', AuditRow, (r): AuditEntry => ({
  id: r.id,
  operatorId: r.operator_id,
  operatorEmail: r.operator_email,
  action: r.action,
  target: { kind: r.target_kind, id: r.target_id },
  before: snapshotOf(r.before_json),
  after: snapshotOf(r.after_json),
  reason: r.reason,
  at: r.at,
}));
