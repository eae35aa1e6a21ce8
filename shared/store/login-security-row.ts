// The auth log's and login settings' rows as both engines store them (the same columns in SQLite and
// PostgreSQL), decoded. The auth stats' row is each engine's own: SQLite sums booleans (NULL over no rows), PostgreSQL counts.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { AUTH_RESULTS, type AuthLogEntry, type LoginSettings } from '../domain/login-security.js';

const EntryRow = Type.Object({
  id: Int,
  account_id: Nullable(Int),
  user_id: Nullable(Int),
  email: Text,
  address: Text,
  user_agent: Text,
  result: OneOf(AUTH_RESULTS),
  at: Text,
});

export const decodeEntry = rowDecoder('auth log entry', EntryRow, (r): AuthLogEntry => ({
  id: r.id,
  accountId: r.account_id,
  userId: r.user_id,
  email: r.email,
  address: r.address,
  userAgent: r.user_agent,
  result: r.result,
  at: r.at,
}));

const SettingsRow = Type.Object({ failures_per_email: Int, window_minutes: Int, session_idle_minutes: Int, session_absolute_hours: Int });

export const decodeSettings = rowDecoder('login settings', SettingsRow, (r): LoginSettings => ({
  failuresPerEmail: r.failures_per_email,
  windowMinutes: r.window_minutes,
  sessionIdleMinutes: r.session_idle_minutes,
  sessionAbsoluteHours: r.session_absolute_hours,
}));
