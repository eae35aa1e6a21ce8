// Application passwords in PostgreSQL: the password's sha256 (unique), a name unique per user, last use.
import type { PgSql } from './sql.js';
import type { ApplicationPassword } from '../../domain/user.js';
import type { ApplicationPasswordRepository, NewApplicationPassword } from '../users.js';
import { decodePassword } from '../application-password-row.js';

/** Every column but the password's hash, which is only ever looked up. */
const COLUMNS = 'uuid, user_id, name, app_id, created_at, last_used_at, last_ip';

export class PgApplicationPasswordStore implements ApplicationPasswordRepository {
  constructor(private readonly sql: PgSql) {}

  /**
   * The unique index on (user_id, name) refuses a second password of the same name (DO NOTHING: no row back),
   * also when both are created at once: the second insert waits for the first and then finds the conflict.
   */
  async create(p: NewApplicationPassword): Promise<ApplicationPassword | 'name_taken'> {
    const row = await this.sql.get(
      `INSERT INTO application_passwords (uuid, user_id, name, app_id, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_id, name) DO NOTHING RETURNING ${COLUMNS}`,
      [p.uuid, p.userId, p.name, p.appId, p.passwordHash, p.at],
    );
    return row ? decodePassword(row) : 'name_taken';
  }

  async list(userId: number): Promise<ApplicationPassword[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM application_passwords WHERE user_id = $1 ORDER BY created_at, uuid`, [userId]);
    return rows.map(decodePassword);
  }

  async findByHash(passwordHash: string): Promise<ApplicationPassword | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM application_passwords WHERE password_hash = $1`, [passwordHash]);
    return row && decodePassword(row);
  }

  async revoke(userId: number, uuid: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM application_passwords WHERE user_id = $1 AND uuid = $2', [userId, uuid])).changes === 1;
  }

  async recordUse(uuid: string, at: string, address: string): Promise<void> {
    await this.sql.run('UPDATE application_passwords SET last_used_at = $1, last_ip = $2 WHERE uuid = $3', [at, address, uuid]);
  }
}
