// Dashboard users in PostgreSQL. The unique index on lower(email) refuses a second user of the same email
// (ON CONFLICT DO NOTHING: no row comes back); a CHECK keeps team_id null exactly for platform operators.
import type { PgSql, Queryable, SqlValue } from './sql.js';
import { isUniqueViolation } from './sql.js';
import { nowIso } from '../../time.js';
import { OPERATOR_ROLE, type Operator, type User } from '../../domain/user.js';
import type { NewUser, UserRepository } from '../users.js';
import { decodeHash, decodeOperator, decodeUser } from '../user-row.js';

/** Every column but the password hash, which leaves the store only through passwordHash(). */
const COLUMNS = 'id, team_id, email, name, role, must_change_password, created_at, updated_at';

/** A new user's row, or none when the email is taken (the unique index decides, so no check can race it). */
const INSERT_USER = `INSERT INTO users (team_id, email, name, role, password_hash, must_change_password, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`;
const insertParams = (u: NewUser, at: string): SqlValue[] => [
  u.role === OPERATOR_ROLE ? null : u.teamId,
  u.email,
  u.name,
  u.role,
  u.passwordHash,
  +u.mustChangePassword,
  at,
  at,
];

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
