// An account's billing identity and its invoices. Billing info is what the account tells the platform (who to
// invoice, where, under which tax id); an invoice is issued for a payment of credits, numbered in one sequence
// for the platform, with the seller's and the buyer's billing info as they stood when it was issued (or revised).

export interface BillingInfo {
  name: string;
  /** Street lines, in order (1 to 3). */
  addressLines: string[];
  postalCode: string;
  city: string;
  region: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** A VAT number (checked for its country where its format is known) or another tax id; null when none. */
  taxId: string | null;
  /** Where invoices are mailed; null: the account owner's address. */
  invoiceEmail: string | null;
}

export interface InvoiceLine {
  description: string;
  quantity: number;
  /** Per unit, in the currency's minor unit (cents): may be a fraction of one (a credit's price), to 1/10,000. */
  unitAmountMinor: number;
  amountMinor: number;
}

/** What an invoice is issued for: a payment of credits, by its reference (the provider's payment id). */
export interface InvoicedPayment {
  reference: string;
  credits: number;
  /** What was paid, tax included, in minor units. */
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  paidAt: string;
  description?: string;
}

export interface Invoice {
  id: number;
  /** The platform's sequence, e.g. TERN-000001: kept by every revision. */
  number: string;
  accountId: number;
  paymentReference: string;
  /** 1 when issued; each re-issue with corrected billing info adds one. */
  revision: number;
  seller: BillingInfo;
  buyer: BillingInfo;
  lines: InvoiceLine[];
  currency: string;
  subtotalMinor: number;
  /** The tax rate in percent (e.g. 20), 0 for a reverse charge. */
  taxRatePercent: number;
  taxMinor: number;
  totalMinor: number;
  /** A line the invoice must carry (the reverse-charge mention), or ''. */
  taxNote: string;
  issuedAt: string;
  /** When this revision was made; null for the first issue. */
  revisedAt: string | null;
}
