// An invoice as a PDF, drawn with pdfkit: number, dates and revision, seller and buyer, the lines, tax and
// totals. The document is a stream: it is written to the client as pdfkit produces it.
import PDFDocument from 'pdfkit';
import type { Readable } from 'node:stream';
import type { BillingInfo, Invoice } from '../domain/billing.js';

/**
 * An amount in minor units as the currency writes it (1250 EUR → "€12.50"); `finer` more digits for a price that
 * is a fraction of a minor unit (0.1 EUR cent, a credit's price → "€0.001").
 */
export function money(minor: number, currency: string, finer = 0): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const format = new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits + finer });
  return format.format(minor / 10 ** digits);
}

const day = (iso: string) => iso.slice(0, 10);

function party(doc: PDFKit.PDFDocument, title: string, who: BillingInfo, x: number, y: number): void {
  const lines = [who.name, ...who.addressLines, [who.postalCode, who.city].filter(Boolean).join(' '), who.region, who.country].filter((l) => l && l.trim());
  if (who.taxId) lines.push(`Tax id: ${who.taxId}`);
  if (who.invoiceEmail) lines.push(who.invoiceEmail);
  doc.font('Helvetica-Bold').fontSize(10).text(title, x, y, { width: 240 });
  doc.font('Helvetica').fontSize(10);
  for (const line of lines) doc.text(line, { width: 240 });
}

function table(doc: PDFKit.PDFDocument, invoice: Invoice, top: number): number {
  const columns = [50, 300, 380, 470];
  doc.font('Helvetica-Bold').fontSize(10);
  ['Description', 'Quantity', 'Unit price', 'Amount'].forEach((h, i) => doc.text(h, columns[i], top, { width: i ? 80 : 240, align: i ? 'right' : 'left' }));
  let y = top + 18;
  doc.font('Helvetica');
  for (const line of invoice.lines) {
    const cells = [line.description, line.quantity.toLocaleString('en'), money(line.unitAmountMinor, invoice.currency, 4), money(line.amountMinor, invoice.currency)];
    cells.forEach((c, i) => doc.text(c, columns[i], y, { width: i ? 80 : 240, align: i ? 'right' : 'left' }));
    y += 18;
  }
  return y + 10;
}

function totals(doc: PDFKit.PDFDocument, invoice: Invoice, top: number): void {
  const rows: Array<[string, string]> = [
    ['Subtotal', money(invoice.subtotalMinor, invoice.currency)],
    [`Tax (${invoice.taxRatePercent}%)`, money(invoice.taxMinor, invoice.currency)],
    ['Total', money(invoice.totalMinor, invoice.currency)],
  ];
  let y = top;
  for (const [label, value] of rows) {
    doc.font(label === 'Total' ? 'Helvetica-Bold' : 'Helvetica').text(label, 300, y, { width: 160, align: 'right' });
    doc.text(value, 470, y, { width: 80, align: 'right' });
    y += 18;
  }
  if (invoice.taxNote)
    doc
      .font('Helvetica')
      .fontSize(9)
      .text(invoice.taxNote, 50, y + 10, { width: 500 });
}

/** The invoice's PDF, as a stream. */
export function invoicePdf(invoice: Invoice): Readable {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Invoice ${invoice.number}`, Author: invoice.seller.name } });
  doc.font('Helvetica-Bold').fontSize(20).text(`Invoice ${invoice.number}`, 50, 50);
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(`Issued: ${day(invoice.issuedAt)}`);
  if (invoice.revision > 1) doc.text(`Revision ${invoice.revision}, revised ${day(invoice.revisedAt ?? invoice.issuedAt)}`);
  doc.text(`Payment: ${invoice.paymentReference}`);
  party(doc, 'From', invoice.seller, 50, 140);
  party(doc, 'Bill to', invoice.buyer, 310, 140);
  totals(doc, invoice, table(doc, invoice, 300));
  doc.end();
  return doc;
}
