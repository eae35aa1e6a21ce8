// Billing info and invoices in SQLite (migration 23). An invoice's current revision is a JSON document on its
// row (read whole, never queried inside); earlier revisions move to invoice_revisions. Numbers come from the
// largest sequence + 1 inside the issuing transaction (SQLite has one writer; PostgreSQL would use a SEQUENCE
// with the same UNIQUE constraint).
import { Type } from '@sinclair/typebox';
import type { Queryable, Sql } from './sql.js';
import { countOf, Int, rowDecoder } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { BillingInfo, Invoice } from '../../domain/billing.js';
import type { BillingRepository, InvoiceDraft } from '../billing.js';
import { decodeInfoRow, decodeInvoice, documentOf } from '../billing-row.js';

const decodeNext = rowDecoder('next invoice sequence', Type.Object({ next: Int }), (r) => r.next);

const COLUMNS = 'id, number, account_id, revision, document_json';

async function byReference(q: Queryable, reference: string): Promise<Invoice | undefined> {
  const row = await q.get(`SELECT ${COLUMNS} FROM invoices WHERE payment_reference = ?`, [reference]);
  return row && decodeInvoice(row);
}

export class BillingStore implements BillingRepository {
  constructor(private readonly sql: Sql) {}

  async billingInfo(accountId: number): Promise<BillingInfo | undefined> {
    const row = await this.sql.get('SELECT info_json FROM billing_info WHERE account_id = ?', [accountId]);
    return row && decodeInfoRow(row);
  }

  async saveBillingInfo(accountId: number, info: BillingInfo): Promise<BillingInfo> {
    const [row] = await this.sql.returning(
      `INSERT INTO billing_info (account_id, info_json, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET info_json = excluded.info_json, updated_at = excluded.updated_at RETURNING info_json`,
      [accountId, JSON.stringify(info), nowIso()],
    );
    return decodeInfoRow(row!);
  }

  issueInvoice(draft: InvoiceDraft, numberPrefix: string): Promise<Invoice> {
    return this.sql.tx(async (q) => {
      const existing = await byReference(q, draft.paymentReference);
      if (existing) return existing;
      const next = decodeNext((await q.get('SELECT COALESCE(MAX(sequence), 0) + 1 AS next FROM invoices'))!);
      const number = `${numberPrefix}${String(next).padStart(6, '0')}`;
      const row = await q.get(
        `INSERT INTO invoices (sequence, number, account_id, payment_reference, revision, document_json, issued_at)
         VALUES (?, ?, ?, ?, 1, ?, ?) RETURNING ${COLUMNS}`,
        [next, number, draft.accountId, draft.paymentReference, JSON.stringify(documentOf({ ...draft, revisedAt: null })), draft.issuedAt],
      );
      return decodeInvoice(row!);
    });
  }

  async invoice(id: number, accountId?: number): Promise<Invoice | undefined> {
    const row = await this.sql.get(
      `SELECT ${COLUMNS} FROM invoices WHERE id = ?${accountId === undefined ? '' : ' AND account_id = ?'}`,
      accountId === undefined ? [id] : [id, accountId],
    );
    return row && decodeInvoice(row);
  }

  async invoices(accountId: number, page: PageRequest): Promise<PageOf<Invoice>> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM invoices WHERE account_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, [accountId, ...limitOffset(page)]);
    const total = await this.sql.get('SELECT COUNT(*) AS n FROM invoices WHERE account_id = ?', [accountId]);
    return { rows: rows.map(decodeInvoice), total: countOf(total!) };
  }

  reviseInvoice(id: number, accountId: number, buyer: BillingInfo, at: string): Promise<Invoice | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${COLUMNS} FROM invoices WHERE id = ? AND account_id = ?`, [id, accountId]);
      if (!row) return undefined;
      const current = decodeInvoice(row);
      await q.run('INSERT INTO invoice_revisions (invoice_id, revision, document_json, created_at) VALUES (?, ?, ?, ?)', [
        id,
        current.revision,
        JSON.stringify(documentOf(current)),
        at,
      ]);
      const revised = await q.get(`UPDATE invoices SET revision = revision + 1, document_json = ? WHERE id = ? RETURNING ${COLUMNS}`, [
        JSON.stringify(documentOf({ ...current, buyer, revisedAt: at })),
        id,
      ]);
      return decodeInvoice(revised!);
    });
  }
}
