// Sending and admin keys. Only hashes are stored; the value is shown once by the caller.
import type { Sql } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../shared/time.js';
import type { KeyKind } from '../../shared/api-key.js';
import { isScope, type Scope } from '../../shared/scopes.js';

export type KeyStatus = 'active' | 'revoked';

export interface KeyRecord {
  id: number;
  accountId: number;
  kind: KeyKind;
  title: string;
  keyHash: string;
  keyStart: string;
  keyEnd: string;
  scopes: Scope[];
  domainId: string | null;
  domainName: string | null;
  status: KeyStatus;
  createdAt: string;
}

interface KeyRow extends Record<string, unknown> {
  id: number;
  account_id: number;
  kind: KeyKind;
  title: string;
  key_hash: string;
  key_start: string;
  key_end: string;
  scopes: string;
  domain_id: string | null;
  domain_name: string | null;
  status: KeyStatus;
  created_at: string;
}

const toKey = (r: KeyRow): KeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind,
  title: r.title,
  keyHash: r.key_hash,
  keyStart: r.key_start,
  keyEnd: r.key_end,
  scopes: (JSON.parse(r.scopes) as string[]).filter(isScope),
  domainId: r.domain_id,
  domainName: r.domain_name,
  status: r.status,
  createdAt: r.created_at,
});

const SELECT = `SELECT k.*, d.name AS domain_name FROM api_keys k LEFT JOIN domains d ON d.id = k.domain_id`;

export interface NewKey {
  accountId: number;
  title: string;
  hash: string;
  start: string;
  end: string;
}

export class KeyStore {
  constructor(private readonly sql: Sql) {}

  async createSending(k: NewKey & { domainId: string | null }): Promise<KeyRecord> {
    const { lastId } = await this.sql.run(
      `INSERT INTO api_keys (account_id, kind, title, key_hash, key_start, key_end, domain_id, created_at) VALUES (?, 'sending', ?, ?, ?, ?, ?, ?)`,
      [k.accountId, k.title, k.hash, k.start, k.end, k.domainId, nowIso()],
    );
    return (await this.get(lastId))!;
  }

  /** Creates an admin key unless the account (with all its teams) already holds `limit` active ones. */
  async createAdmin(k: NewKey & { rootId: number; scopes: Scope[] }, limit: number): Promise<KeyRecord | 'limit_reached'> {
    const id = await this.sql.tx(async (q) => {
      const row = await q.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM api_keys WHERE kind = 'admin' AND status = 'active'
           AND account_id IN (SELECT id FROM accounts WHERE id = ? OR parent_id = ?)`,
        [k.rootId, k.rootId],
      );
      if ((row?.n ?? 0) >= limit) return null;
      const res = await q.run(
        `INSERT INTO api_keys (account_id, kind, title, key_hash, key_start, key_end, scopes, created_at) VALUES (?, 'admin', ?, ?, ?, ?, ?, ?)`,
        [k.accountId, k.title, k.hash, k.start, k.end, JSON.stringify(k.scopes), nowIso()],
      );
      return res.lastId;
    });
    return id === null ? 'limit_reached' : (await this.get(id))!;
  }

  async get(id: number): Promise<KeyRecord | undefined> {
    const row = await this.sql.get<KeyRow>(`${SELECT} WHERE k.id = ?`, [id]);
    return row && toKey(row);
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    const row = await this.sql.get<KeyRow>(`${SELECT} WHERE k.key_hash = ?`, [hash]);
    return row && toKey(row);
  }

  async listSending(accountId: number, page: PageRequest): Promise<PageOf<KeyRecord>> {
    const where = `k.account_id = ? AND k.kind = 'sending' AND k.status = 'active'`;
    const rows = await this.sql.all<KeyRow>(`${SELECT} WHERE ${where} ORDER BY k.id LIMIT ? OFFSET ?`, [accountId, ...limitOffset(page)]);
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM api_keys k WHERE ${where}`, [accountId]);
    return { rows: rows.map(toKey), total: count?.n ?? 0 };
  }

  /** Revokes an active key of the given kind on the given team; returns its hash for cache invalidation. */
  async revoke(id: number, kind: KeyKind, accountId?: number): Promise<string | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get<{ key_hash: string; account_id: number }>(
        `SELECT key_hash, account_id FROM api_keys WHERE id = ? AND kind = ? AND status = 'active'`,
        [id, kind],
      );
      if (!row || (accountId !== undefined && row.account_id !== accountId)) return undefined;
      await q.run(`UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?`, [nowIso(), id]);
      return row.key_hash;
    });
  }

  /** Revokes every sending key limited to a domain that is being removed. */
  async revokeForDomain(domainId: string): Promise<string[]> {
    return this.sql.tx(async (q) => {
      const rows = await q.all<{ key_hash: string }>(`SELECT key_hash FROM api_keys WHERE domain_id = ? AND status = 'active'`, [domainId]);
      await q.run(`UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE domain_id = ? AND status = 'active'`, [nowIso(), domainId]);
      return rows.map((r) => r.key_hash);
    });
  }
}
