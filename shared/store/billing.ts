// The billing repository: an account's billing info, and its invoices (issued once per payment, numbered in one
// gap-free sequence, revised with corrected billing info under the same number, every revision kept).
import type { BillingInfo, Invoice } from '../domain/billing.js';
import type { PageOf, PageRequest } from './paging.js';

/** An invoice to issue: the store gives it its id, its number (prefix + sequence) and revision 1. */
export type InvoiceDraft = Omit<Invoice, 'id' | 'number' | 'revision' | 'revisedAt'>;

export interface BillingRepository {
  billingInfo(accountId: number): Promise<BillingInfo | undefined>;
  saveBillingInfo(accountId: number, info: BillingInfo): Promise<BillingInfo>;
  /** Issues the invoice of a payment, or returns the one already issued for its reference (a retried webhook). */
  issueInvoice(draft: InvoiceDraft, numberPrefix: string): Promise<Invoice>;
  /** An invoice, of the account when one is given. */
  invoice(id: number, accountId?: number): Promise<Invoice | undefined>;
  /** The account's invoices, newest first. */
  invoices(accountId: number, page: PageRequest): Promise<PageOf<Invoice>>;
  /** Re-issues an invoice of the account with other buyer info: the same number, the next revision, the last kept. */
  reviseInvoice(id: number, accountId: number, buyer: BillingInfo, at: string): Promise<Invoice | undefined>;
}
