// Sending domains. Names are unique among live domains across the whole service.
import { randomBytes } from 'node:crypto';
import type { Sql } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../shared/time.js';

export type VerificationStatus = 'draft' | 'verified';

export interface Domain {
  id: string;
  accountId: number;
  name: string;
  verificationStatus: VerificationStatus;
  isDefault: boolean;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKeyEnc: string;
  dmarcPolicy: string | null;
  autoVerifyActive: boolean;
  autoVerifyReason: string;
  lastCheckAt: string | null;
  lastCheckResult: string | null;
  verifiedAt: string | null;
  totalSent: number;
  totalBounced: number;
  totalComplained: number;
  createdAt: string;
  updatedAt: string;
}

interface DomainRow extends Record<string, unknown> {
  id: string;
  account_id: number;
  name: string;
  verification_status: VerificationStatus;
  is_default: number;
  dkim_selector: string;
  dkim_public_key: string;
  dkim_private_key_enc: string;
  dmarc_policy: string | null;
  auto_verify_active: number;
  auto_verify_reason: string;
  last_check_at: string | null;
  last_check_result: string | null;
  verified_at: string | null;
  total_sent: number;
  total_bounced: number;
  total_complained: number;
  created_at: string;
  updated_at: string;
}

const toDomain = (r: DomainRow): Domain => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  verificationStatus: r.verification_status,
  isDefault: r.is_default === 1,
  dkimSelector: r.dkim_selector,
  dkimPublicKey: r.dkim_public_key,
  dkimPrivateKeyEnc: r.dkim_private_key_enc,
  dmarcPolicy: r.dmarc_policy,
  autoVerifyActive: r.auto_verify_active === 1,
  autoVerifyReason: r.auto_verify_reason,
  lastCheckAt: r.last_check_at,
  lastCheckResult: r.last_check_result,
  verifiedAt: r.verified_at,
  totalSent: r.total_sent,
  totalBounced: r.total_bounced,
  totalComplained: r.total_complained,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface NewDomain {
  accountId: number;
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKeyEnc: string;
}

export interface CheckRecord {
  verified: boolean;
  dmarcPolicy: string | null;
  /** What is still missing, shown as auto_verification.reason while checks go on. */
  summary: string;
  result: unknown;
}

const LIVE = 'deleted_at IS NULL';

export class DomainStore {
  constructor(private readonly sql: Sql) {}

  /** Creates a draft domain; the team's first live domain becomes its default. */
  async create(d: NewDomain): Promise<Domain | 'exists'> {
    const id = randomBytes(12).toString('base64url');
    const created = await this.sql.tx(async (q) => {
      if (await q.get(`SELECT 1 FROM domains WHERE name = ? AND ${LIVE}`, [d.name])) return false;
      const others = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM domains WHERE account_id = ? AND ${LIVE}`, [d.accountId]);
      const now = nowIso();
      await q.run(
        `INSERT INTO domains (id, account_id, name, is_default, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, d.accountId, d.name, others?.n ? 0 : 1, d.dkimSelector, d.dkimPublicKey, d.dkimPrivateKeyEnc, now, now],
      );
      return true;
    });
    return created ? (await this.get(id))! : 'exists';
  }

  async get(id: string, accountId?: number): Promise<Domain | undefined> {
    const row =
      accountId === undefined
        ? await this.sql.get<DomainRow>(`SELECT * FROM domains WHERE id = ? AND ${LIVE}`, [id])
        : await this.sql.get<DomainRow>(`SELECT * FROM domains WHERE id = ? AND account_id = ? AND ${LIVE}`, [id, accountId]);
    return row && toDomain(row);
  }

  async findByName(name: string): Promise<Domain | undefined> {
    const row = await this.sql.get<DomainRow>(`SELECT * FROM domains WHERE name = ? AND ${LIVE}`, [name.toLowerCase()]);
    return row && toDomain(row);
  }

  async list(accountId: number, page: PageRequest): Promise<PageOf<Domain>> {
    const rows = await this.sql.all<DomainRow>(`SELECT * FROM domains WHERE account_id = ? AND ${LIVE} ORDER BY created_at, id LIMIT ? OFFSET ?`, [
      accountId,
      ...limitOffset(page),
    ]);
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM domains WHERE account_id = ? AND ${LIVE}`, [accountId]);
    return { rows: rows.map(toDomain), total: count?.n ?? 0 };
  }

  /** Removes a domain; when it was the default, the team's oldest remaining domain becomes default. */
  async remove(id: string, accountId: number): Promise<boolean> {
    return this.sql.tx(async (q) => {
      const now = nowIso();
      const gone = await q.run(`UPDATE domains SET deleted_at = ?, is_default = 0, updated_at = ? WHERE id = ? AND account_id = ? AND ${LIVE}`, [
        now,
        now,
        id,
        accountId,
      ]);
      if (!gone.changes) return false;
      const hasDefault = await q.get(`SELECT 1 FROM domains WHERE account_id = ? AND is_default = 1 AND ${LIVE}`, [accountId]);
      if (!hasDefault) {
        await q.run(
          `UPDATE domains SET is_default = 1 WHERE id = (SELECT id FROM domains WHERE account_id = ? AND ${LIVE} ORDER BY created_at, id LIMIT 1)`,
          [accountId],
        );
      }
      return true;
    });
  }

  /** Drafts still covered by the automatic check. */
  async awaitingCheck(): Promise<Domain[]> {
    const rows = await this.sql.all<DomainRow>(
      `SELECT * FROM domains WHERE ${LIVE} AND verification_status = 'draft' AND auto_verify_active = 1 ORDER BY last_check_at IS NOT NULL, last_check_at`,
    );
    return rows.map(toDomain);
  }

  /** Stores a check's findings; a passing check verifies the domain and ends its automatic checks. */
  async recordCheck(id: string, check: CheckRecord): Promise<Domain | undefined> {
    const now = nowIso();
    await this.sql.run(
      `UPDATE domains SET last_check_at = ?, last_check_result = ?, dmarc_policy = ?, updated_at = ?,
         verification_status = CASE WHEN ? THEN 'verified' ELSE verification_status END,
         verified_at = CASE WHEN ? AND verified_at IS NULL THEN ? ELSE verified_at END,
         auto_verify_active = CASE WHEN ? THEN 0 ELSE auto_verify_active END,
         auto_verify_reason = ?
       WHERE id = ? AND ${LIVE}`,
      [now, JSON.stringify(check.result), check.dmarcPolicy, now, +check.verified, +check.verified, now, +check.verified, check.verified ? '' : check.summary, id],
    );
    return this.get(id);
  }

  async stopAutoVerify(id: string, reason: string): Promise<void> {
    await this.sql.run(`UPDATE domains SET auto_verify_active = 0, auto_verify_reason = ?, updated_at = ? WHERE id = ? AND ${LIVE}`, [
      reason,
      nowIso(),
      id,
    ]);
  }
}
