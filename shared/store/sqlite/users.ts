// Dashboard users in SQLite. The unique index on email (NOCASE) refuses a second user of the same email; a
// CHECK keeps team_id null exactly for platform operators (migration 17).
import type { Queryable, Sql, SqlValue } from './sql.js';
import { nowIso } from '../../time.js';
import { OPERATOR_ROLE, type Operator, type User } from '../../domain/user.js';
import type { NewProfiledUser, NewUser, UserListQuery, UserRepository } from '../users.js';
import { decodeHash, decodeOperator, decodeProfiled, decodeUser, PROFILE_COLUMNS } from '../user-row.js';
import { slugOf, type ProfiledChange, type ProfiledUser } from '../../domain/user-profile.js';
import { likeContains } from '../like.js';

/** Every column but the password hash, which leaves the store only through passwordHash(). */
const COLUMNS = 'id, team_id, email, name, role, must_change_password, created_at, updated_at';

/** A new user's row, or none when the email is taken (the unique index decides, so no check can race it). */
/** With its profile columns: a user made without a username has its email as one. */
const PROFILED = `${COLUMNS}, ${PROFILE_COLUMNS}`;

const INSERT_USER = `INSERT INTO users (username, slug, first_name, last_name, nickname, url, description, locale,
  team_id, email, name, role, password_hash, must_change_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING RETURNING ${PROFILED}`;
function insertParams(u: NewUser | NewProfiledUser, at: string): SqlValue[] {
  const p = 'profile' in u ? u.profile : { username: u.email };
  const fields = [p.username, p.slug ?? slugOf(p.username), p.firstName ?? '', p.lastName ?? '', p.nickname ?? '', p.url ?? '', p.description ?? '', p.locale ?? ''];
  return [...fields, ...userParams(u, at)];
}
const userParams = (u: NewUser, at: string): SqlValue[] => [
  u.role === OPERATOR_ROLE ? null : u.teamId,
  u.email,
  u.name,
  u.role,
  u.passwordHash,
  +u.mustChangePassword,
  at,
  at,
];

const ORDER_COLUMNS = { id: 'id', name: 'name', registered_date: 'created_at', slug: 'slug', email: 'email', url: 'url' } as const;

/** The WHERE of a listing and its parameters; LIKE is case-blind for ASCII in SQLite. */
function listFilter(q: UserListQuery): { where: string; params: SqlValue[] } {
  const terms: string[] = [];
  const params: SqlValue[] = [];
  const marks = (values: readonly SqlValue[]) => {
    params.push(...values);
    return values.map(() => '?').join(', ');
  };
  if (q.scope.kind === 'account') {
    terms.push('team_id IN (SELECT id FROM teams WHERE id = ? OR parent_id = ?)');
    params.push(q.scope.accountId, q.scope.accountId);
  }
  if (q.include?.length) terms.push(`id IN (${marks(q.include)})`);
  if (q.exclude?.length) terms.push(`id NOT IN (${marks(q.exclude)})`);
  if (q.slugs?.length) terms.push(`slug IN (${marks(q.slugs)})`);
  if (q.roles?.length) terms.push(`role IN (${marks(q.roles)})`);
  if (q.search) {
    const like = likeContains(q.search);
    terms.push(`(${['username', 'email', 'url', 'slug', 'name'].map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(like, like, like, like, like);
  }
  return { where: terms.length ? `WHERE ${terms.join(' AND ')}` : '', params };
}

/** ORDER BY of a listing: `include`/`include_slugs` in the order given, ties (and the rest) by id. */
function listOrder(q: UserListQuery): { sql: string; params: SqlValue[] } {
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  const positional = (column: string, values: readonly SqlValue[]) => ({
    sql: `CASE ${column} ${values.map((_, i) => `WHEN ? THEN ${i}`).join(' ')} ELSE ${values.length} END ${dir}, id ${dir}`,
    params: [...values],
  });
  if (q.orderby === 'include' && q.include?.length) return positional('id', q.include);
  if (q.orderby === 'include_slugs' && q.slugs?.length) return positional('slug', q.slugs);
  const column = q.orderby === 'include' || q.orderby === 'include_slugs' ? 'id' : ORDER_COLUMNS[q.orderby];
  return { sql: column === 'id' ? `id ${dir}` : `${column} ${dir}, id ${dir}`, params: [] };
}

export class UserStore implements UserRepository {
  constructor(private readonly sql: Sql) {}

  async create(u: NewUser): Promise<User | 'email_taken'> {
    const [row] = await this.sql.returning(INSERT_USER, insertParams(u, nowIso()));
    return row ? decodeUser(row) : 'email_taken';
  }

  /** The two unique indexes decide; which one refused is read afterwards (the email first, as WordPress checks). */
  async createProfiled(u: NewProfiledUser): Promise<ProfiledUser | 'email_taken' | 'username_taken'> {
    const [row] = await this.sql.returning(INSERT_USER, insertParams(u, nowIso()));
    if (row) return decodeProfiled(row);
    return (await this.findByEmail(u.email)) ? 'email_taken' : 'username_taken';
  }

  async profiled(id: number): Promise<ProfiledUser | undefined> {
    const row = await this.sql.get(`SELECT ${PROFILED} FROM users WHERE id = ?`, [id]);
    return row && decodeProfiled(row);
  }

  async listProfiled(q: UserListQuery): Promise<{ items: ProfiledUser[]; total: number }> {
    const filter = listFilter(q);
    const order = listOrder(q);
    const rows = await this.sql.all(`SELECT ${PROFILED} FROM users ${filter.where} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, [
      ...filter.params,
      ...order.params,
      q.limit,
      q.offset,
    ]);
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM users ${filter.where}`, filter.params);
    return { items: rows.map(decodeProfiled), total: Number(count?.n ?? 0) };
  }

  /** OR IGNORE: a taken email leaves the row as it was, and no row comes back. */
  async updateProfiled(id: number, c: ProfiledChange): Promise<ProfiledUser | 'email_taken' | undefined> {
    const values = [c.name, c.email, c.role, c.slug, c.firstName, c.lastName, c.nickname, c.url, c.description, c.locale].map((v) => v ?? null);
    const [row] = await this.sql.returning(
      `UPDATE OR IGNORE users SET name = COALESCE(?, name), email = COALESCE(?, email), role = COALESCE(?, role), slug = COALESCE(?, slug),
        first_name = COALESCE(?, first_name), last_name = COALESCE(?, last_name), nickname = COALESCE(?, nickname), url = COALESCE(?, url),
        description = COALESCE(?, description), locale = COALESCE(?, locale), updated_at = ? WHERE id = ? RETURNING ${PROFILED}`,
      [...values, nowIso(), id],
    );
    if (row) return decodeProfiled(row);
    return (await this.get(id)) ? 'email_taken' : undefined;
  }

  async remove(id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM users WHERE id = ?', [id])).changes === 1;
  }

  /** Creates a user inside another repository's transaction (an invitation accepted). */
  static async insert(q: Queryable, u: NewUser, at: string): Promise<User | 'email_taken'> {
    const row = await q.get(INSERT_USER, insertParams(u, at));
    return row ? decodeUser(row) : 'email_taken';
  }

  async get(id: number): Promise<User | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
    return row && decodeUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM users WHERE email = ? COLLATE NOCASE`, [email]);
    return row && decodeUser(row);
  }

  async passwordHash(id: number): Promise<string | undefined> {
    const row = await this.sql.get('SELECT password_hash FROM users WHERE id = ?', [id]);
    return row && decodeHash(row);
  }

  async setPassword(id: number, passwordHash: string, mustChange: boolean): Promise<boolean> {
    const result = await this.sql.run('UPDATE users SET password_hash = ?, must_change_password = ?, updated_at = ? WHERE id = ?', [
      passwordHash,
      +mustChange,
      nowIso(),
      id,
    ]);
    return result.changes === 1;
  }

  /** OR IGNORE: a taken email leaves the row as it was, and no row comes back. */
  async update(id: number, change: { name?: string; email?: string }): Promise<User | 'email_taken' | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE OR IGNORE users SET name = COALESCE(?, name), email = COALESCE(?, email), updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
      [change.name ?? null, change.email ?? null, nowIso(), id],
    );
    if (row) return decodeUser(row);
    return (await this.get(id)) ? 'email_taken' : undefined;
  }

  async listByTeam(teamId: number): Promise<User[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM users WHERE team_id = ? ORDER BY created_at, id`, [teamId]);
    return rows.map(decodeUser);
  }

  /** team_id IS NULL exactly for operators (the table's CHECK), and users_by_team indexes it. */
  async listOperators(): Promise<Operator[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM users WHERE team_id IS NULL ORDER BY created_at, id`);
    return rows.map(decodeOperator);
  }
}
