// Billing info and invoices in PostgreSQL. An invoice's current revision is a JSON document on its row (read
// whole, never queried inside); earlier revisions move to invoice_revisions. Numbers must have no gap, so they
// do not come from a SEQUENCE (a rolled-back or refused insert burns its value): each issue inserts the largest
// sequence + 1 in the same statement, and the UNIQUE constraint on sequence decides between issuers racing on
// several processes — the loser inserts nothing (ON CONFLICT DO NOTHING) and tries again with the next number.
import type { PgSql, Queryable } from './sql.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { BillingInfo, Invoice } from '../../domain/billing.js';
import type { BillingRepository, InvoiceDraft } from '../billing.js';
import { decodeInfoRow, decodeInvoice, documentOf } from '../billing-row.js';

const COLUMNS = 'id, number, account_id, revision, document_json';

/**
 * The next number, taken in the insert itself (MAX over the unique index on sequence: one index probe). A
 * concurrent issuer's uncommitted row of the same sequence makes this statement wait for its commit, then
 * insert nothing; so does an invoice already issued for the reference. No row back: the caller looks again.
 * The number is the prefix and the sequence padded to six digits, as on SQLite (padStart: never cut).
 */
const ISSUE = `INSERT INTO invoices (sequence, number, account_id, payment_reference, revision, document_json, issued_at)
  SELECT next, $1::text || repeat('0', GREATEST(0, 6 - length(next::text))) || next::text, $2::bigint, $3::text, 1, $4::text, $5::text
  FROM (SELECT COALESCE(MAX(sequence), 0) + 1 AS next FROM invoices) AS n
  ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`;

/** Tries before giving up: each lost race means another issue succeeded, so this bounds only a pathological storm. */
const ISSUE_TRIES = 1_000;

async function byReference(q: Queryable, reference: string): Promise<Invoice | undefined> {
  const row = await q.get(`SELECT ${COLUMNS} FROM invoices WHERE payment_reference = $1`, [reference]);
  return row && decodeInvoice(row);
}

export class PgBillingStore implements BillingRepository {
  constructor(private readonly sql: PgSql) {}

  async billingInfo(accountId: number): Promise<BillingInfo | undefined> {
    const row = await this.sql.get('SELECT info_json FROM billing_info WHERE account_id = $1', [accountId]);
    return row && decodeInfoRow(row);
  }

  async saveBillingInfo(accountId: number, info: BillingInfo): Promise<BillingInfo> {
    const row = await this.sql.get(
      `INSERT INTO billing_info (account_id, info_json, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET info_json = excluded.info_json, updated_at = excluded.updated_at RETURNING info_json`,
      [accountId, JSON.stringify(info), nowIso()],
    );
    return decodeInfoRow(row!);
  }

  /** The invoice of the reference if issued, else a new one: each statement stands alone (no transaction to hold). */
  async issueInvoice(draft: InvoiceDraft, numberPrefix: string): Promise<Invoice> {
    const document = JSON.stringify(documentOf({ ...draft, revisedAt: null }));
    for (let tries = 0; tries < ISSUE_TRIES; tries++) {
      const existing = await byReference(this.sql, draft.paymentReference);
      if (existing) return existing;
      const row = await this.sql.get(ISSUE, [numberPrefix, draft.accountId, draft.paymentReference, document, draft.issuedAt]);
      if (row) return decodeInvoice(row);
    }
    throw new Error(`no invoice number could be taken for ${draft.paymentReference} after ${ISSUE_TRIES} tries`);
  }

  async invoice(id: number, accountId?: number): Promise<Invoice | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM invoices WHERE id = $1${accountId === undefined ? '' : ' AND account_id = $2'}`,
      accountId === undefined ? [id] : [id, accountId],
    );
    return row && decodeInvoice(row);
  }

  async invoices(accountId: number, page: PageRequest): Promise<PageOf<Invoice>> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM invoices WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`, [accountId, ...limitOffset(page)]);
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM invoices WHERE account_id = $1', [accountId]);
    return { rows: rows.map(decodeInvoice), total: countOf(total!) };
  }

  /**
   * The current revision is read under its row lock (FOR UPDATE): two revisions racing take turns, each keeping
   * the other's document in invoice_revisions, so none is lost and the revision numbers stay one apart.
   */
  reviseInvoice(id: number, accountId: number, buyer: BillingInfo, at: string): Promise<Invoice | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${COLUMNS} FROM invoices WHERE id = $1 AND account_id = $2 FOR UPDATE`, [id, accountId]);
      if (!row) return undefined;
      const current = decodeInvoice(row);
      await q.run('INSERT INTO invoice_revisions (invoice_id, revision, document_json, created_at) VALUES ($1, $2, $3, $4)', [
        id,
        current.revision,
        JSON.stringify(documentOf(current)),
        at,
      ]);
      const revised = await q.get(`UPDATE invoices SET revision = revision + 1, document_json = $1 WHERE id = $2 RETURNING ${COLUMNS}`, [
        JSON.stringify(documentOf({ ...current, buyer, revisedAt: at })),
        id,
      ]);
      return decodeInvoice(revised!);
    });
  }
}
