// Dashboard users in SQLite. The unique index on email (NOCASE) refuses a second user of the same email; a
// CHECK keeps team_id null exactly for platform operators (migration 17).
import type { Queryable, Sql, SqlValue } from './sql.js';
import { nowIso } from '../../time.js';
import { OPERATOR_ROLE, type Operator, type User } from '../../domain/user.js';
import type { NewUser, UserRepository } from '../users.js';
import { decodeHash, decodeOperator, decodeUser } from '../user-row.js';

/** Every column but the password hash, which leaves the store only through passwordHash(). */
const COLUMNS = 'id, team_id, email, name, role, must_change_password, created_at, updated_at';

/** A new user's row, or none when the email is taken (the unique index decides, so no check can race it). */
const INSERT_USER = `INSERT INTO users (team_id, email, name, role, password_hash, must_change_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`;
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

export class UserStore implements UserRepository {
  constructor(private readonly sql: Sql) {}

  async create(u: NewUser): Promise<User | 'email_taken'> {
    const [row] = await this.sql.returning(INSERT_USER, insertParams(u, nowIso()));
    return row ? decodeUser(row) : 'email_taken';
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
