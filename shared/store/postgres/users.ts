// Dashboard users in PostgreSQL. The unique index on lower(email) refuses a second user of the same email
// (ON CONFLICT DO NOTHING: no row comes back); a CHECK keeps team_id null exactly for platform operators.
import type { PgSql, Queryable, SqlValue } from './sql.js';
import { isUniqueViolation, ParamList } from './sql.js';
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
  team_id, email, name, role, password_hash, must_change_password, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING RETURNING ${PROFILED}`;
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

/** The WHERE of a listing, its values added to `p`; ILIKE for SQLite's case-blind LIKE. */
function listFilter(q: UserListQuery, p: ParamList): string {
  const terms: string[] = [];
  if (q.scope.kind === 'account') {
    const account = p.add(q.scope.accountId);
    terms.push(`team_id IN (SELECT id FROM teams WHERE id = ${account} OR parent_id = ${account})`);
  }
  if (q.include?.length) terms.push(`id = ANY(${p.add(q.include)}::bigint[])`);
  if (q.exclude?.length) terms.push(`NOT (id = ANY(${p.add(q.exclude)}::bigint[]))`);
  if (q.slugs?.length) terms.push(`slug = ANY(${p.add(q.slugs)}::text[])`);
  if (q.roles?.length) terms.push(`role = ANY(${p.add(q.roles)}::text[])`);
  if (q.search) {
    const like = p.add(likeContains(q.search));
    terms.push(`(${['username', 'email', 'url', 'slug', 'name'].map((c) => `${c} ILIKE ${like}`).join(' OR ')})`);
  }
  return terms.length ? `WHERE ${terms.join(' AND ')}` : '';
}

/** ORDER BY of a listing: `include`/`include_slugs` in the order given, ties (and the rest) by id. */
function listOrder(q: UserListQuery, p: ParamList): string {
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  if (q.orderby === 'include' && q.include?.length) return `array_position(${p.add(q.include)}::bigint[], id) ${dir}, id ${dir}`;
  if (q.orderby === 'include_slugs' && q.slugs?.length) return `array_position(${p.add(q.slugs)}::text[], slug) ${dir}, id ${dir}`;
  const column = q.orderby === 'include' || q.orderby === 'include_slugs' ? 'id' : ORDER_COLUMNS[q.orderby];
  return column === 'id' ? `id ${dir}` : `${column} ${dir}, id ${dir}`;
}

export class PgUserStore implements UserRepository {
  constructor(private readonly sql: PgSql) {}

  create(u: NewUser): Promise<User | 'email_taken'> {
    return PgUserStore.insert(this.sql, u, nowIso());
  }

  /** Creates a user inside another repository's transaction (an invitation accepted). */
  static async insert(q: Queryable, u: NewUser, at: string): Promise<User | 'email_taken'> {
    const row = await q.get(INSERT_USER, insertParams(u, at));
    return row ? decodeUser(row) : 'email_taken';
  }

  /** The two unique indexes decide; which one refused is read afterwards (the email first, as WordPress checks). */
  async createProfiled(u: NewProfiledUser): Promise<ProfiledUser | 'email_taken' | 'username_taken'> {
    const row = await this.sql.get(INSERT_USER, insertParams(u, nowIso()));
    if (row) return decodeProfiled(row);
    return (await this.findByEmail(u.email)) ? 'email_taken' : 'username_taken';
  }

  async profiled(id: number): Promise<ProfiledUser | undefined> {
    const row = await this.sql.get(`SELECT ${PROFILED} FROM users WHERE id = $1`, [id]);
    return row && decodeProfiled(row);
  }

  async listProfiled(q: UserListQuery): Promise<{ items: ProfiledUser[]; total: number }> {
    const p = new ParamList();
    const where = listFilter(q, p);
    const counted = p.values.slice();
    const order = listOrder(q, p);
    const rows = await this.sql.all(`SELECT ${PROFILED} FROM users ${where} ORDER BY ${order} LIMIT ${p.add(q.limit)} OFFSET ${p.add(q.offset)}`, p.values);
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM users ${where}`, counted);
    return { items: rows.map(decodeProfiled), total: Number(count?.n ?? 0) };
  }

  /** The unique index refuses a taken email: the statement fails with nothing changed, and the refusal is 'email_taken'. */
  async updateProfiled(id: number, c: ProfiledChange): Promise<ProfiledUser | 'email_taken' | undefined> {
    const values = [c.name, c.email, c.role, c.slug, c.firstName, c.lastName, c.nickname, c.url, c.description, c.locale].map((v) => v ?? null);
    try {
      const row = await this.sql.get(
        `UPDATE users SET name = COALESCE($1, name), email = COALESCE($2, email), role = COALESCE($3, role), slug = COALESCE($4, slug),
          first_name = COALESCE($5, first_name), last_name = COALESCE($6, last_name), nickname = COALESCE($7, nickname), url = COALESCE($8, url),
          description = COALESCE($9, description), locale = COALESCE($10, locale), updated_at = $11 WHERE id = $12 RETURNING ${PROFILED}`,
        [...values, nowIso(), id],
      );
      return row && decodeProfiled(row);
    } catch (err) {
      if (isUniqueViolation(err, 'users_email')) return 'email_taken';
      throw err;
    }
  }

  async remove(id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM users WHERE id = $1', [id])).changes === 1;
  }

  async get(id: number): Promise<User | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
    return row && decodeUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
    return row && decodeUser(row);
  }

  async passwordHash(id: number): Promise<string | undefined> {
    const row = await this.sql.get('SELECT password_hash FROM users WHERE id = $1', [id]);
    return row && decodeHash(row);
  }

  async setPassword(id: number, passwordHash: string, mustChange: boolean): Promise<boolean> {
    const result = await this.sql.run('UPDATE users SET password_hash = $1, must_change_password = $2, updated_at = $3 WHERE id = $4', [
      passwordHash,
      +mustChange,
      nowIso(),
      id,
    ]);
    return result.changes === 1;
  }

  /** The unique index refuses a taken email: the statement fails with nothing changed, and the refusal is 'email_taken'. */
  async update(id: number, change: { name?: string; email?: string }): Promise<User | 'email_taken' | undefined> {
    try {
      const row = await this.sql.get(`UPDATE users SET name = COALESCE($1, name), email = COALESCE($2, email), updated_at = $3 WHERE id = $4 RETURNING ${COLUMNS}`, [
        change.name ?? null,
        change.email ?? null,
        nowIso(),
        id,
      ]);
      return row && decodeUser(row);
    } catch (err) {
      if (isUniqueViolation(err, 'users_email')) return 'email_taken';
      throw err;
    }
  }

  async listByTeam(teamId: number): Promise<User[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM users WHERE team_id = $1 ORDER BY created_at, id`, [teamId]);
    return rows.map(decodeUser);
  }

  /** team_id IS NULL exactly for operators (the table's CHECK), and users_by_team indexes it. */
  async listOperators(): Promise<Operator[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM users WHERE team_id IS NULL ORDER BY created_at, id`);
    return rows.map(decodeOperator);
  }
}
