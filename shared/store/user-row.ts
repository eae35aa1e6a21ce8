// A dashboard user's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded.
import { Type, type Static } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, StoreDecodeError, Text, type Row } from './decode.js';
import { USER_ROLES, isOperator, OPERATOR_ROLE, type Operator, type User } from '../domain/user.js';
import type { ProfiledUser, UserProfile } from '../domain/user-profile.js';

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

/** The profile's columns, in both engines; a user from before profiles has its email as username. */
export const PROFILE_COLUMNS = 'username, slug, first_name, last_name, nickname, url, description, locale';

const ProfileRow = Type.Object({
  email: Text,
  username: Nullable(Text),
  slug: Text,
  first_name: Text,
  last_name: Text,
  nickname: Text,
  url: Text,
  description: Text,
  locale: Text,
});

export const decodeProfile = rowDecoder('user profile', ProfileRow, (r): UserProfile => ({
  username: r.username ?? r.email,
  slug: r.slug,
  firstName: r.first_name,
  lastName: r.last_name,
  nickname: r.nickname,
  url: r.url,
  description: r.description,
  locale: r.locale,
}));

export const decodeProfiled = (row: Row): ProfiledUser => ({ user: decodeUser(row), profile: decodeProfile(row) });
