// Sending and admin keys in PostgreSQL. Only hashes are stored (key_hash is unique); the value is shown once by
// the caller. The admin-key limit of an account is counted under the account's admin-key lock.
import type { PgSql } from './sql.js';
import { countOf } from './decode.js';
import { decodeKey, decodeKeyHash } from '../key-row.js';
import { lockOwner } from './owner-lock.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { KeyKind } from '../../api-key.js';
import type { Scope } from '../../scopes.js';
import type { KeyRecord } from '../../domain/key-record.js';
import type { KeyRepository, NewKey } from '../keys.js';

const SELECT = `SELECT k.*, d.name AS domain_name FROM api_keys k LEFT JOIN domains d ON d.id = k.domain_id`;
/** What an insert gives back: the row as SELECT reads it, with its domain's name. */
const RETURNED = `RETURNING *, (SELECT name FROM domains WHERE id = domain_id) AS domain_name`;
/** The teams of the account $1, itself included. */
const OF_ACCOUNT = 'team_id IN (SELECT id FROM teams WHERE id = $1::bigint OR parent_id = $1::bigint)';

const INSERT_SENDING = `INSERT INTO api_keys (team_id, kind, title, key_hash, key_start, key_end, domain_id, created_at)
  VALUES ($1, 'sending', $2, $3, $4, $5, $6, $7) ${RETURNED}`;

const INSERT_ADMIN = `INSERT INTO api_keys (team_id, kind, title, key_hash, key_start, key_end, scopes, created_at)
  SELECT $2::bigint, 'admin', $3::text, $4::text, $5::text, $6::text, $7::text, $8::text
  WHERE (SELECT COUNT(*) FROM api_keys WHERE kind = 'admin' AND status = 'active' AND ${OF_ACCOUNT}) < $9 ${RETURNED}`;

export class PgKeyStore implements KeyRepository {
  constructor(private readonly sql: PgSql) {}

  async createSending(k: NewKey & { domainId: string | null }): Promise<KeyRecord> {
    const row = await this.sql.get(INSERT_SENDING, [k.teamId, k.title, k.hash, k.start, k.end, k.domainId, nowIso()]);
    return decodeKey(row!);
  }

  /**
   * The count and the insert are one statement, as on SQLite; under READ COMMITTED that is not enough (two
   * inserts started together both count the same committed keys), so creations for one account first take the
   * account's admin-key lock and the insert, a statement after it, counts every key its predecessor committed.
   */
  createAdmin(k: NewKey & { accountId: number; scopes: Scope[] }, limit: number): Promise<KeyRecord | 'limit_reached'> {
    return this.sql.tx(async (q) => {
      await lockOwner(q, 'api_keys.admin', k.accountId);
      const row = await q.get(INSERT_ADMIN, [k.accountId, k.teamId, k.title, k.hash, k.start, k.end, JSON.stringify(k.scopes), nowIso(), limit]);
      return row ? decodeKey(row) : 'limit_reached';
    });
  }

  async get(id: number): Promise<KeyRecord | undefined> {
    const row = await this.sql.get(`${SELECT} WHERE k.id = $1`, [id]);
    return row && decodeKey(row);
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    const row = await this.sql.get(`${SELECT} WHERE k.key_hash = $1`, [hash]);
    return row && decodeKey(row);
  }

  async listSending(teamId: number, page: PageRequest): Promise<PageOf<KeyRecord>> {
    const where = `k.team_id = $1 AND k.kind = 'sending' AND k.status = 'active'`;
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(`${SELECT} WHERE ${where} ORDER BY k.created_at, k.id LIMIT $2 OFFSET $3`, [teamId, limit, offset]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM api_keys k WHERE ${where}`, [teamId]);
    return { rows: rows.map(decodeKey), total: countOf(count!) };
  }

  async listAdmin(accountId: number): Promise<KeyRecord[]> {
    const rows = await this.sql.all(`${SELECT} WHERE k.kind = 'admin' AND k.status = 'active' AND k.${OF_ACCOUNT} ORDER BY k.created_at, k.id`, [accountId]);
    return rows.map(decodeKey);
  }

  /** The status in the WHERE: of two revocations of one key, only the first changes it and gets its hash. */
  async revoke(id: number, kind: KeyKind, teamId?: number): Promise<string | undefined> {
    const row = await this.sql.get(
      `UPDATE api_keys SET status = 'revoked', revoked_at = $1 WHERE id = $2 AND kind = $3 AND status = 'active' AND ($4::bigint IS NULL OR team_id = $4)
       RETURNING key_hash`,
      [nowIso(), id, kind, teamId ?? null],
    );
    return row && decodeKeyHash(row);
  }

  async revokeForDomain(domainId: string): Promise<string[]> {
    const rows = await this.sql.all(`UPDATE api_keys SET status = 'revoked', revoked_at = $1 WHERE domain_id = $2 AND status = 'active' RETURNING key_hash`, [
      nowIso(),
      domainId,
    ]);
    return rows.map(decodeKeyHash);
  }
}
