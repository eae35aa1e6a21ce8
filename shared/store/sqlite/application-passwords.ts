// Application passwords in SQLite: the password's sha256 (unique), a name unique per user, last use.
import type { Sql } from './sql.js';
import type { ApplicationPassword } from '../../domain/user.js';
import type { ApplicationPasswordRepository, NewApplicationPassword } from '../users.js';
import { decodePassword } from '../application-password-row.js';

const COLUMNS = 'uuid, user_id, name, app_id, created_at, last_used_at, last_ip';

export class ApplicationPasswordStore implements ApplicationPasswordRepository {
  constructor(private readonly sql: Sql) {}

  /** The unique index on (user_id, name) refuses a second password of the same name (DO NOTHING: no row back). */
  async create(p: NewApplicationPassword): Promise<ApplicationPassword | 'name_taken'> {
    const [row] = await this.sql.returning(
      `INSERT INTO application_passwords (uuid, user_id, name, app_id, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, name) DO NOTHING RETURNING ${COLUMNS}`,
      [p.uuid, p.userId, p.name, p.appId, p.passwordHash, p.at],
    );
    return row ? decodePassword(row) : 'name_taken';
  }

  async list(userId: number): Promise<ApplicationPassword[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM application_passwords WHERE user_id = ? ORDER BY created_at, uuid`, [userId]);
    return rows.map(decodePassword);
  }

  async findByHash(passwordHash: string): Promise<ApplicationPassword | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM application_passwords WHERE password_hash = ?`, [passwordHash]);
    return row && decodePassword(row);
  }

  async revoke(userId: number, uuid: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM application_passwords WHERE user_id = ? AND uuid = ?', [userId, uuid])).changes === 1;
  }

  async recordUse(uuid: string, at: string, address: string): Promise<void> {
    await this.sql.run('UPDATE application_passwords SET last_used_at = ?, last_ip = ? WHERE uuid = ?', [at, address, uuid]);
  }
}
