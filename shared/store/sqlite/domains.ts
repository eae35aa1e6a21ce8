// Sending domains in SQLite. Names are unique among live domains across the whole service (index domains_live_name).
import { randomBytes } from 'node:crypto';
import type { Sql } from './sql.js';
import { inList, pointReads } from './point-reads.js';
import { countOf } from './decode.js';
import { decodeDomain, decodeDomainCounts } from '../domain-row.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { Domain } from '../../domain/sending-domain.js';
import type { CheckRecord, DomainCounts, DomainRepository, NewDomain } from '../domains.js';

const LIVE = 'deleted_at IS NULL';
/** A team's live domains and the verified ones among them. */
const COUNTS = `SELECT COUNT(*) AS live, COALESCE(SUM(CASE WHEN verification_status = 'verified' THEN 1 ELSE 0 END), 0) AS verified
  FROM domains WHERE team_id = ? AND ${LIVE}`;

export class DomainStore implements DomainRepository {
  /** The live domains of some names, read together (see point-reads.ts). */
  private readonly byName = pointReads(async (names: readonly string[]) => {
    const list = inList(names);
    const rows = await this.sql.all(`SELECT * FROM domains WHERE name IN ${list.sql} AND ${LIVE}`, list.params);
    return new Map(rows.map(decodeDomain).map((domain) => [domain.name, domain]));
  });

  constructor(private readonly sql: Sql) {}

  /**
   * One statement: the unique index on live names refuses a taken name (DO NOTHING, so no row comes back), and
   * the default flag is decided by the same statement that inserts, not by an earlier read.
   */
  async create(d: NewDomain): Promise<Domain | 'exists'> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      `INSERT INTO domains (id, team_id, name, is_default, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at)
       VALUES (?, ?, ?, NOT EXISTS (SELECT 1 FROM domains WHERE team_id = ? AND ${LIVE}), ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING *`,
      [randomBytes(12).toString('base64url'), d.teamId, d.name, d.teamId, d.dkimSelector, d.dkimPublicKey, d.dkimPrivateKeyEnc, now, now],
    );
    return row ? decodeDomain(row) : 'exists';
  }

  async get(id: string, teamId?: number): Promise<Domain | undefined> {
    const row =
      teamId === undefined
        ? await this.sql.get(`SELECT * FROM domains WHERE id = ? AND ${LIVE}`, [id])
        : await this.sql.get(`SELECT * FROM domains WHERE id = ? AND team_id = ? AND ${LIVE}`, [id, teamId]);
    return row && decodeDomain(row);
  }

  findByName(name: string): Promise<Domain | undefined> {
    return this.byName(name.toLowerCase());
  }

  async list(teamId: number, page: PageRequest): Promise<PageOf<Domain>> {
    const rows = await this.sql.all(`SELECT * FROM domains WHERE team_id = ? AND ${LIVE} ORDER BY created_at, id LIMIT ? OFFSET ?`, [teamId, ...limitOffset(page)]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE team_id = ? AND ${LIVE}`, [teamId]);
    return { rows: rows.map(decodeDomain), total: countOf(count!) };
  }

  async countsOf(teamId: number): Promise<DomainCounts> {
    return decodeDomainCounts((await this.sql.get(COUNTS, [teamId]))!);
  }

  async remove(id: string, teamId: number): Promise<boolean> {
    return this.sql.tx(async (q) => {
      const now = nowIso();
      const gone = await q.run(`UPDATE domains SET deleted_at = ?, is_default = 0, updated_at = ? WHERE id = ? AND team_id = ? AND ${LIVE}`, [now, now, id, teamId]);
      if (!gone.changes) return false;
      await q.run(
        `UPDATE domains SET is_default = 1 WHERE id = (SELECT id FROM domains WHERE team_id = ? AND ${LIVE} ORDER BY created_at, id LIMIT 1)
           AND NOT EXISTS (SELECT 1 FROM domains WHERE team_id = ? AND is_default = 1 AND ${LIVE})`,
        [teamId, teamId],
      );
      return true;
    });
  }

  async awaitingCheck(): Promise<Domain[]> {
    const rows = await this.sql.all(
      `SELECT * FROM domains WHERE ${LIVE} AND verification_status = 'draft' AND auto_verify_active = 1 ORDER BY last_check_at IS NOT NULL, last_check_at`,
    );
    return rows.map(decodeDomain);
  }

  async recordCheck(id: string, check: CheckRecord): Promise<Domain | undefined> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      `UPDATE domains SET last_check_at = ?, last_check_result = ?, dmarc_policy = ?, updated_at = ?,
         verification_status = CASE WHEN ? THEN 'verified' ELSE verification_status END,
         verified_at = CASE WHEN ? AND verified_at IS NULL THEN ? ELSE verified_at END,
         auto_verify_active = CASE WHEN ? THEN 0 ELSE auto_verify_active END,
         auto_verify_reason = ?
       WHERE id = ? AND ${LIVE} RETURNING *`,
      [now, JSON.stringify(check.result), check.dmarcPolicy, now, +check.verified, +check.verified, now, +check.verified, check.verified ? '' : check.summary, id],
    );
    return row && decodeDomain(row);
  }

  async stopAutoVerify(id: string, reason: string): Promise<void> {
    await this.sql.run(`UPDATE domains SET auto_verify_active = 0, auto_verify_reason = ?, updated_at = ? WHERE id = ? AND ${LIVE}`, [reason, nowIso(), id]);
  }
}
