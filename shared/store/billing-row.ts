// Billing info and invoices as both engines store them (JSON documents on their rows: the same columns in SQLite
// and PostgreSQL), decoded.
import { Type, type Static } from '@sinclair/typebox';
import { Int, jsonDecoder, Nullable, rowDecoder, Text } from './decode.js';
import type { Invoice } from '../domain/billing.js';

const BillingInfoSchema = Type.Object({
  name: Text,
  addressLines: Type.Array(Text),
  postalCode: Text,
  city: Text,
  region: Text,
  country: Text,
  taxId: Nullable(Text),
  invoiceEmail: Nullable(Text),
});

/** What the document column holds: the invoice without what its row says (id, number, account, revision). */
const DocumentSchema = Type.Object({
  paymentReference: Text,
  seller: BillingInfoSchema,
  buyer: BillingInfoSchema,
  // A unit price may be a fraction of a minor unit (a credit's price); amounts are whole.
  lines: Type.Array(Type.Object({ description: Text, quantity: Int, unitAmountMinor: Type.Number(), amountMinor: Int })),
  currency: Text,
  subtotalMinor: Int,
  taxRatePercent: Type.Number(),
  taxMinor: Int,
  totalMinor: Int,
  taxNote: Text,
  issuedAt: Text,
  revisedAt: Nullable(Text),
});

/** An invoice's current revision, as its row holds it (document_json). */
type InvoiceDocument = Static<typeof DocumentSchema>;

const decodeInfo = jsonDecoder('billing info', BillingInfoSchema);

const decodeDocument = jsonDecoder('invoice document', DocumentSchema);

export const decodeInvoice = rowDecoder('invoice', Type.Object({ id: Int, number: Text, account_id: Int, revision: Int, document_json: Text }), (r): Invoice => ({
  ...decodeDocument(r.document_json),
  id: r.id,
  number: r.number,
  accountId: r.account_id,
  revision: r.revision,
}));

export const decodeInfoRow = rowDecoder('billing info row', Type.Object({ info_json: Text }), (r) => decodeInfo(r.info_json));

/** The document an invoice row holds for its current revision (document_json): the invoice without its row's own columns. */
export const documentOf = (i: Omit<Invoice, 'id' | 'number' | 'accountId' | 'revision'>): InvoiceDocument => ({
  paymentReference: i.paymentReference,
  seller: i.seller,
  buyer: i.buyer,
  lines: i.lines,
  currency: i.currency,
  subtotalMinor: i.subtotalMinor,
  taxRatePercent: i.taxRatePercent,
  taxMinor: i.taxMinor,
  totalMinor: i.totalMinor,
  taxNote: i.taxNote,
  issuedAt: i.issuedAt,
  revisedAt: i.revisedAt,
});
