// Sending domains in PostgreSQL. Names are unique among live domains across the whole service (the partial
// unique index domains_live_name); a team's default flag is moved only under the team's domain lock.
import { randomBytes } from 'node:crypto';
import type { PgSql, Queryable } from './sql.js';
import { countOf } from './decode.js';
import { decodeDomain, decodeDomainCounts } from '../domain-row.js';
import { lockOwner } from './owner-lock.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { Domain } from '../../domain/sending-domain.js';
import type { CheckRecord, DomainCounts, DomainRepository, NewDomain } from '../domains.js';

const LIVE = 'deleted_at IS NULL';
/** A team's live domains and the verified ones among them. */
const COUNTS = `SELECT COUNT(*) AS live, COALESCE(SUM(CASE WHEN verification_status = 'verified' THEN 1 ELSE 0 END), 0) AS verified
  FROM domains WHERE team_id = $1 AND ${LIVE}`;

/**
 * The writers of a team's default flag (a domain created, a domain removed) run one after another: under READ
 * COMMITTED, two creations' `NOT EXISTS (live domain of the team)` would both read "none" and both insert a
 * default, where SQLite's single writer serialises them.
 */
const lockDefault = (q: Queryable, teamId: number) => lockOwner(q, 'domains.default', teamId);

/** A taken live name (or, vanishingly, a taken id) inserts nothing: no row comes back. */
const INSERT = `INSERT INTO domains (id, team_id, name, is_default, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at)
  VALUES ($1, $2, $3, (NOT EXISTS (SELECT 1 FROM domains WHERE team_id = $2 AND ${LIVE}))::int, $4, $5, $6, $7, $7)
  ON CONFLICT DO NOTHING RETURNING *`;

/** The team's oldest live domain becomes default when none is. */
const NEXT_DEFAULT = `UPDATE domains SET is_default = 1 WHERE id = (SELECT id FROM domains WHERE team_id = $1 AND ${LIVE} ORDER BY created_at, id LIMIT 1)
  AND NOT EXISTS (SELECT 1 FROM domains WHERE team_id = $1 AND is_default = 1 AND ${LIVE})`;

const RECORD_CHECK = `UPDATE domains SET last_check_at = $1, last_check_result = $2, dmarc_policy = $3, updated_at = $1,
    verification_status = CASE WHEN $4 THEN 'verified' ELSE verification_status END,
    verified_at = CASE WHEN $4 AND verified_at IS NULL THEN $1 ELSE verified_at END,
    auto_verify_active = CASE WHEN $4 THEN 0 ELSE auto_verify_active END,
    auto_verify_reason = $5
  WHERE id = $6 AND ${LIVE} RETURNING *`;

export class PgDomainStore implements DomainRepository {
  constructor(private readonly sql: PgSql) {}

  /** The unique index refuses a taken name (ON CONFLICT DO NOTHING, inside the transaction without aborting it). */
  create(d: NewDomain): Promise<Domain | 'exists'> {
    return this.sql.tx(async (q) => {
      await lockDefault(q, d.teamId);
      const row = await q.get(INSERT, [randomBytes(12).toString('base64url'), d.teamId, d.name, d.dkimSelector, d.dkimPublicKey, d.dkimPrivateKeyEnc, nowIso()]);
      return row ? decodeDomain(row) : 'exists';
    });
  }

  async get(id: string, teamId?: number): Promise<Domain | undefined> {
    const row =
      teamId === undefined
        ? await this.sql.get(`SELECT * FROM domains WHERE id = $1 AND ${LIVE}`, [id])
        : await this.sql.get(`SELECT * FROM domains WHERE id = $1 AND team_id = $2 AND ${LIVE}`, [id, teamId]);
    return row && decodeDomain(row);
  }

  /** One read on domains_live_name per name: the pool runs lookups side by side (SQLite's batching is not ported). */
  async findByName(name: string): Promise<Domain | undefined> {
    const row = await this.sql.get(`SELECT * FROM domains WHERE name = $1 AND ${LIVE}`, [name.toLowerCase()]);
    return row && decodeDomain(row);
  }

  async list(teamId: number, page: PageRequest): Promise<PageOf<Domain>> {
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(`SELECT * FROM domains WHERE team_id = $1 AND ${LIVE} ORDER BY created_at, id LIMIT $2 OFFSET $3`, [teamId, limit, offset]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE team_id = $1 AND ${LIVE}`, [teamId]);
    return { rows: rows.map(decodeDomain), total: countOf(count!) };
  }

  async countsOf(teamId: number): Promise<DomainCounts> {
    return decodeDomainCounts((await this.sql.get(COUNTS, [teamId]))!);
  }

  remove(id: string, teamId: number): Promise<boolean> {
    return this.sql.tx(async (q) => {
      await lockDefault(q, teamId);
      const now = nowIso();
      const gone = await q.run(`UPDATE domains SET deleted_at = $1, is_default = 0, updated_at = $1 WHERE id = $2 AND team_id = $3 AND ${LIVE}`, [now, id, teamId]);
      if (!gone.changes) return false;
      await q.run(NEXT_DEFAULT, [teamId]);
      return true;
    });
  }

  /** Never checked first (false sorts before true), then the longest unchecked; ties in creation order. */
  async awaitingCheck(): Promise<Domain[]> {
    const rows = await this.sql.all(
      `SELECT * FROM domains WHERE ${LIVE} AND verification_status = 'draft' AND auto_verify_active = 1
       ORDER BY last_check_at IS NOT NULL, last_check_at, rowid`,
    );
    return rows.map(decodeDomain);
  }

  async recordCheck(id: string, check: CheckRecord): Promise<Domain | undefined> {
    const row = await this.sql.get(RECORD_CHECK, [nowIso(), JSON.stringify(check.result), check.dmarcPolicy, check.verified, check.verified ? '' : check.summary, id]);
    return row && decodeDomain(row);
  }

  async stopAutoVerify(id: string, reason: string): Promise<void> {
    await this.sql.run(`UPDATE domains SET auto_verify_active = 0, auto_verify_reason = $1, updated_at = $2 WHERE id = $3 AND ${LIVE}`, [reason, nowIso(), id]);
  }
}
