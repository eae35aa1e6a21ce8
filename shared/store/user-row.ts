// A dashboard user's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type, type Static } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, StoreDecodeError, Text, type Row } from './decode.js';
import { USER_ROLES, isOperator, OPERATOR_ROLE, type Operator, type User } from '../domain/user.js';

const UserRow = Type.Object({
  id: Int,
  team_id: Nullable(Int),
  email: Text,
  name: Text,
  role: OneOf(USER_ROLES),
  must_change_password: Flag,
  created_at: Text,
  updated_at: Text,
});

/** An operator has no team and every other user one (the table's CHECK keeps it so). */
function userOf(r: Static<typeof UserRow>): User {
  const fields = { id: r.id, email: r.email, name: r.name, mustChangePassword: r.must_change_password === 1, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.role === OPERATOR_ROLE && r.team_id === null) return { ...fields, role: r.role };
  if (r.role !== OPERATOR_ROLE && r.team_id !== null) return { ...fields, role: r.role, teamId: r.team_id };
  throw new StoreDecodeError('user', `a user of role ${r.role} with team ${String(r.team_id)}`);
}

export const decodeUser = rowDecoder('user', UserRow, userOf);

export const decodeOperator = (row: Row): Operator => {
  const user = decodeUser(row);
  if (!isOperator(user)) throw new StoreDecodeError('operator', `user ${user.id} is no operator`);
  return user;
};

export const decodeHash = rowDecoder('password hash', Type.Object({ password_hash: Text }), (r) => r.password_hash);
