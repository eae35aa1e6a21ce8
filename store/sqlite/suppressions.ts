// A team's suppression list: addresses that are not sent to.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../shared/time.js';

export const SUPPRESSION_STATUSES = ['bounced', 'complained', 'suppressed'] as const;
export type SuppressionStatus = (typeof SUPPRESSION_STATUSES)[number];

export interface Suppression {
  email: string;
  status: SuppressionStatus;
  reason: string;
  messageId: string | null;
  createdAt: string;
}

interface SuppressionRow extends Record<string, unknown> {
  email: string;
  status: SuppressionStatus;
  reason: string;
  message_id: string | null;
  created_at: string;
}

const toSuppression = (r: SuppressionRow): Suppression => ({
  email: r.email,
  status: r.status,
  reason: r.reason,
  messageId: r.message_id,
  createdAt: r.created_at,
});

export interface SuppressionQuery extends PageRequest {
  search?: string;
  status?: SuppressionStatus;
}

/** SQL ranking a status column: complained > bounced > suppressed (a manual entry). */
const rank = (column: string): string => `CASE ${column} WHEN 'complained' THEN 3 WHEN 'bounced' THEN 2 ELSE 1 END`;

/** Escapes LIKE wildcards so a search for `a_b%` matches those characters literally. */
const likeContains = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class SuppressionStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Adds or refreshes an address; a complaint outranks a bounce, which outranks a manual entry, so a
   * later bounce never hides an earlier complaint.
   */
  async add(accountId: number, s: Omit<Suppression, 'createdAt'>): Promise<void> {
    await SuppressionStore.upsert(this.sql, accountId, s);
  }

  /** The same, inside a caller's transaction (bounce and complaint processing). */
  static async upsert(q: Queryable, accountId: number, s: Omit<Suppression, 'createdAt'>): Promise<void> {
    await q.run(
      `INSERT INTO suppressions (account_id, email, status, reason, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, email) DO UPDATE SET status = excluded.status, reason = excluded.reason,
         message_id = excluded.message_id, created_at = excluded.created_at
       WHERE ${rank('excluded.status')} >= ${rank('suppressions.status')}`,
      [accountId, s.email.toLowerCase(), s.status, s.reason, s.messageId, nowIso()],
    );
  }

  async list(accountId: number, query: SuppressionQuery): Promise<PageOf<Suppression>> {
    const clauses = ['account_id = ?'];
    const params: SqlValue[] = [accountId];
    if (query.search) {
      clauses.push(`email LIKE ? ESCAPE '\\'`);
      params.push(likeContains(query.search));
    }
    if (query.status) {
      clauses.push('status = ?');
      params.push(query.status);
    }
    const where = clauses.join(' AND ');
    const rows = await this.sql.all<SuppressionRow>(
      `SELECT email, status, reason, message_id, created_at FROM suppressions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      [...params, ...limitOffset(query)],
    );
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM suppressions WHERE ${where}`, params);
    return { rows: rows.map(toSuppression), total: count?.n ?? 0 };
  }

  async remove(accountId: number, email: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM suppressions WHERE account_id = ? AND email = ?', [accountId, email.toLowerCase()])).changes === 1;
  }

  async isSuppressed(accountId: number, email: string): Promise<boolean> {
    return !!(await this.sql.get('SELECT 1 FROM suppressions WHERE account_id = ? AND email = ?', [accountId, email.toLowerCase()]));
  }

  /** Which of these (lower-cased) addresses the team suppresses, in one query rather than one per recipient. */
  async suppressedAmong(accountId: number, emails: readonly string[]): Promise<Set<string>> {
    if (!emails.length) return new Set();
    const rows = await this.sql.all<{ email: string }>(
      `SELECT email FROM suppressions WHERE account_id = ? AND email IN (${emails.map(() => '?').join(',')})`,
      [accountId, ...emails],
    );
    return new Set(rows.map((r) => r.email));
  }
}
