// Sending and admin keys in SQLite. Only hashes are stored; the value is shown once by the caller.
import type { Sql } from './sql.js';
import { countOf } from './decode.js';
import { decodeKey, decodeKeyHash as decodeHash } from '../key-row.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { KeyKind } from '../../api-key.js';
import type { Scope } from '../../scopes.js';
import type { KeyRecord } from '../../domain/key-record.js';
import type { KeyRepository, NewKey } from '../keys.js';

const SELECT = `SELECT k.*, d.name AS domain_name FROM api_keys k LEFT JOIN domains d ON d.id = k.domain_id`;
/** What an insert gives back: the row as SELECT reads it, with its domain's name. */
const RETURNED = `RETURNING *, (SELECT name FROM domains WHERE id = domain_id) AS domain_name`;
/** The teams of an account, itself included. */
const OF_ACCOUNT = 'team_id IN (SELECT id FROM teams WHERE id = ? OR parent_id = ?)';

export class KeyStore implements KeyRepository {
  constructor(private readonly sql: Sql) {}

  async createSending(k: NewKey & { domainId: string | null }): Promise<KeyRecord> {
    const [row] = await this.sql.returning(
      `INSERT INTO api_keys (team_id, kind, title, key_hash, key_start, key_end, domain_id, created_at) VALUES (?, 'sending', ?, ?, ?, ?, ?, ?) ${RETURNED}`,
      [k.teamId, k.title, k.hash, k.start, k.end, k.domainId, nowIso()],
    );
    return decodeKey(row!);
  }

  /** One conditional insert: the count and the insert are one statement (see docs/decisions.md, "Limits kept by the store"). */
  async createAdmin(k: NewKey & { accountId: number; scopes: Scope[] }, limit: number): Promise<KeyRecord | 'limit_reached'> {
    const [row] = await this.sql.returning(
      `INSERT INTO api_keys (team_id, kind, title, key_hash, key_start, key_end, scopes, created_at) SELECT ?, 'admin', ?, ?, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM api_keys WHERE kind = 'admin' AND status = 'active' AND ${OF_ACCOUNT}) < ? ${RETURNED}`,
      [k.teamId, k.title, k.hash, k.start, k.end, JSON.stringify(k.scopes), nowIso(), k.accountId, k.accountId, limit],
    );
    return row ? decodeKey(row) : 'limit_reached';
  }

  async get(id: number): Promise<KeyRecord | undefined> {
    const row = await this.sql.get(`${SELECT} WHERE k.id = ?`, [id]);
    return row && decodeKey(row);
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    const row = await this.sql.get(`${SELECT} WHERE k.key_hash = ?`, [hash]);
    return row && decodeKey(row);
  }

  async listSending(teamId: number, page: PageRequest): Promise<PageOf<KeyRecord>> {
    const where = `k.team_id = ? AND k.kind = 'sending' AND k.status = 'active'`;
    const rows = await this.sql.all(`${SELECT} WHERE ${where} ORDER BY k.created_at, k.id LIMIT ? OFFSET ?`, [teamId, ...limitOffset(page)]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM api_keys k WHERE ${where}`, [teamId]);
    return { rows: rows.map(decodeKey), total: countOf(count!) };
  }

  async listAdmin(accountId: number): Promise<KeyRecord[]> {
    const rows = await this.sql.all(`${SELECT} WHERE k.kind = 'admin' AND k.status = 'active' AND k.${OF_ACCOUNT} ORDER BY k.created_at, k.id`, [accountId, accountId]);
    return rows.map(decodeKey);
  }

  async revoke(id: number, kind: KeyKind, teamId?: number): Promise<string | undefined> {
    const [row] = await this.sql.returning(
      `UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ? AND kind = ? AND status = 'active' AND (? IS NULL OR team_id = ?)
       RETURNING key_hash`,
      [nowIso(), id, kind, teamId ?? null, teamId ?? null],
    );
    return row && decodeHash(row);
  }

  async revokeForDomain(domainId: string): Promise<string[]> {
    const rows = await this.sql.returning(`UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE domain_id = ? AND status = 'active' RETURNING key_hash`, [
      nowIso(),
      domainId,
    ]);
    return rows.map(decodeHash);
  }
}
