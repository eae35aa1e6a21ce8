// Billing info and invoices: an account's billing identity (checked as a whole: a VAT number against its
// country's format, a country as ISO 3166-1), the invoice of each payment of credits (lines, tax, totals,
// numbered by the store), the account's invoices, and a re-issue with corrected billing info under the same
// number. The rules for tax are the configuration's: one rate included in prices, or an EU reverse charge.
import validator from 'validator';
import { checkVAT, countries as vatCountries, type Country as VatRules } from 'jsvat';
import type { Readable } from 'node:stream';
import { invoicePdf } from '../billing/invoice-pdf.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { BillingInfo, Invoice, InvoicedPayment } from '../domain/billing.js';
import { isValidEmail } from '../email-address.js';
import { done, invalidFields, notFound, type Managed } from './management-refusals.js';

/** The member states of the EU, where a VAT reverse charge applies between businesses of two of them. */
const EU = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
]);
const REVERSE_CHARGE_NOTE = 'Reverse charge: VAT to be accounted for by the customer (Council Directive 2006/112/EC, Article 196).';

/** A change of billing info: a field left out stays as it is. */
export type BillingInfoChange = Partial<BillingInfo>;

type Problem = { field: string; message: string };

const tooLong = (value: string, max: number) => value.length > max;
const oneLine = (value: string) => !/[\p{Cc}\p{Cf}]/u.test(value);

/** Every problem of the address, not only the first (a form says them all at once). */
function addressProblems(info: BillingInfo): Problem[] {
  const problems: Problem[] = [];
  if (!info.name.trim() || tooLong(info.name, 200) || !oneLine(info.name)) problems.push({ field: 'name', message: 'name must be one line of 1 to 200 characters.' });
  if (info.addressLines.length < 1 || info.addressLines.length > 3 || info.addressLines.some((l) => !l.trim() || tooLong(l, 200) || !oneLine(l))) {
    problems.push({ field: 'address_lines', message: 'address_lines must be 1 to 3 lines of 1 to 200 characters.' });
  }
  if (tooLong(info.postalCode, 20) || !oneLine(info.postalCode)) problems.push({ field: 'postal_code', message: 'postal_code must have at most 20 characters.' });
  if (!info.city.trim() || tooLong(info.city, 100) || !oneLine(info.city)) problems.push({ field: 'city', message: 'city must have 1 to 100 characters.' });
  if (tooLong(info.region, 100) || !oneLine(info.region)) problems.push({ field: 'region', message: 'region must have at most 100 characters.' });
  if (!validator.isISO31661Alpha2(info.country) || info.country !== info.country.toUpperCase())
    problems.push({ field: 'country', message: 'country must be an ISO 3166-1 alpha-2 code in capitals, e.g. DE.' });
  return problems;
}

type VatCountry = Parameters<typeof validator.isVAT>[1];

/** jsvat's rules (format and check digits) for an ISO 3166-1 country; its first code is the ISO one. */
const vatRulesOf = (country: string): VatRules | undefined => vatCountries.find((c) => c.codes[0] === country);

/** Whether validator knows the VAT number format of `country` (it throws for a country it does not). */
function vatFormatKnown(country: string): country is VatCountry {
  try {
    validator.isVAT('', country as VatCountry);
    return true;
  } catch {
    return false;
  }
}

/**
 * A tax id is checked as a VAT number of its country: format and check digits where jsvat has the country's
 * rules (the EU's, with its prefix: EL for Greece), the format only where validator knows it, else its shape.
 */
function taxIdProblem(taxId: string | null, country: string): Problem | undefined {
  if (taxId === null) return undefined;
  const rules = vatRulesOf(country);
  if (rules) {
    return checkVAT(taxId, [rules]).isValid
      ? undefined
      : { field: 'tax_id', message: `tax_id is not a valid VAT number of ${country}: its format or check digits are wrong (written with its country prefix).` };
  }
  if (vatFormatKnown(country)) {
    return validator.isVAT(taxId, country) ? undefined : { field: 'tax_id', message: `tax_id is not a valid VAT number of ${country}.` };
  }
  return /^[A-Za-z0-9][A-Za-z0-9 ./-]{1,39}$/.test(taxId)
    ? undefined
    : { field: 'tax_id', message: 'tax_id must be 2 to 40 letters, digits, spaces, dots, slashes or hyphens.' };
}

/** Every problem of the info; the tax id is checked against a valid country only. */
function billingInfoProblems(info: BillingInfo): Problem[] {
  const problems = addressProblems(info);
  const taxId = problems.some((p) => p.field === 'country') ? undefined : taxIdProblem(info.taxId, info.country);
  if (taxId) problems.push(taxId);
  if (info.invoiceEmail !== null && !isValidEmail(info.invoiceEmail)) problems.push({ field: 'invoice_email', message: 'invoice_email must be an email address.' });
  return problems;
}

/** The info's problems as one refusal (the first as REST answers it, all in `fields`), or undefined. */
function billingInfoRefusal(info: BillingInfo): Managed<never> | undefined {
  const [first, ...more] = billingInfoProblems(info);
  return first ? invalidFields([first, ...more]) : undefined;
}

/** Trims what was typed, and rewrites nothing else: a lower-case country or a badly written VAT number is refused, not corrected. */
const trim = <T extends string | null | undefined>(value: T): T => (typeof value === 'string' ? (value.trim() as T) : value);
const trimmed = (c: BillingInfoChange): BillingInfoChange => ({
  name: trim(c.name),
  addressLines: c.addressLines?.map((line) => line.trim()),
  postalCode: trim(c.postalCode),
  city: trim(c.city),
  region: trim(c.region),
  country: trim(c.country),
  taxId: trim(c.taxId),
  invoiceEmail: trim(c.invoiceEmail),
});
const givenFields = (c: BillingInfoChange) => Object.entries(c).filter(([, v]) => v !== undefined);

/**
 * A unit price in minor units, to 1/10,000 of one: a credit costs a fraction of a cent (1,000 for 100 cents is
 * 0.1 each), which whole minor units would print as 0.
 */
const unitPriceMinor = (amountMinor: number, quantity: number) => Math.round((amountMinor / quantity) * 10_000) / 10_000;

const EMPTY: BillingInfo = { name: '', addressLines: [], postalCode: '', city: '', region: '', country: '', taxId: null, invoiceEmail: null };

export class Billing {
  constructor(private readonly d: { store: Store; config: Config }) {}

  async info(accountId: number): Promise<BillingInfo | null> {
    return (await this.d.store.billing.billingInfo(accountId)) ?? null;
  }

  /**
   * Changes the fields given; the whole result is checked first, and nothing is saved on any problem. No field
   * given changes nothing: the info as it is (null when never set).
   */
  async updateInfo(accountId: number, change: BillingInfoChange, log: Logger): Promise<Managed<BillingInfo | null>> {
    const stored = await this.d.store.billing.billingInfo(accountId);
    const given = givenFields(trimmed(change));
    if (given.length === 0) return done(stored ?? null);
    const next: BillingInfo = { ...(stored ?? EMPTY), ...Object.fromEntries(given) };
    const refused = billingInfoRefusal(next);
    if (refused) return refused;
    const saved = await this.d.store.billing.saveBillingInfo(accountId, next);
    log.info({ account: accountId, fields: given.map(([field]) => field) }, 'billing info changed');
    return done(saved);
  }

  /**
   * The invoice of a payment (issued once per payment reference: a second call returns the first invoice), with
   * the buyer's billing info as it is now. A reference already invoiced to another account is a broken invariant
   * of the payment path (a reference names one payment of one account), so it throws rather than answer.
   */
  async issue(accountId: number, payment: InvoicedPayment): Promise<Invoice> {
    const { seller, currency } = this.d.config.billing;
    const buyer = await this.buyerOf(accountId);
    const { rate, note } = this.taxFor(buyer);
    const subtotal = Math.round(payment.amountMinor / (1 + rate / 100));
    const description = payment.description ?? `${payment.credits.toLocaleString('en')} sending credits`;
    const invoice = await this.d.store.billing.issueInvoice(
      {
        accountId,
        paymentReference: payment.reference,
        seller: { ...seller, addressLines: [...seller.addressLines] },
        buyer,
        lines: [{ description, quantity: payment.credits, unitAmountMinor: unitPriceMinor(subtotal, payment.credits), amountMinor: subtotal }],
        currency: payment.currency || currency,
        subtotalMinor: subtotal,
        taxRatePercent: rate,
        taxMinor: payment.amountMinor - subtotal,
        totalMinor: payment.amountMinor,
        taxNote: note,
        issuedAt: payment.paidAt,
      },
      this.d.config.billing.invoiceNumberPrefix,
    );
    if (invoice.accountId !== accountId) throw new Error(`Payment ${payment.reference} is already invoiced to another account (${invoice.number})`);
    return invoice;
  }

  invoices(accountId: number, page: PageRequest): Promise<PageOf<Invoice>> {
    return this.d.store.billing.invoices(accountId, page);
  }

  async invoice(accountId: number, id: number): Promise<Managed<Invoice>> {
    const invoice = await this.d.store.billing.invoice(id, accountId);
    return invoice ? done(invoice) : notFound('invoice', 'Invoice not found');
  }

  /** An invoice of the account and its PDF, made when `pdf` is called (a stream, written as it is drawn). */
  async invoiceDocument(accountId: number, id: number): Promise<Managed<{ invoice: Invoice; pdf: () => Readable }>> {
    const found = await this.invoice(accountId, id);
    return found.ok ? done({ invoice: found.value, pdf: () => invoicePdf(found.value) }) : found;
  }

  /**
   * Re-issues an invoice with the account's billing info (changed first by `change`, when given): same number,
   * next revision. Only the buyer changes: lines, tax and totals stay as issued, since what was paid is fixed.
   */
  async reissue(accountId: number, id: number, change: BillingInfoChange, log: Logger): Promise<Managed<Invoice>> {
    if (!(await this.d.store.billing.invoice(id, accountId))) return notFound('invoice', 'Invoice not found');
    const updated = await this.updateInfo(accountId, change, log);
    if (!updated.ok) return updated;
    const buyer = updated.value ?? EMPTY;
    const refused = billingInfoRefusal(buyer);
    if (refused) return refused;
    const revised = await this.d.store.billing.reviseInvoice(id, accountId, buyer, new Date().toISOString());
    if (!revised) return notFound('invoice', 'Invoice not found');
    log.info({ account: accountId, invoice: revised.number, revision: revised.revision }, 'invoice re-issued');
    return done(revised);
  }

  /** The account's billing info; an account that never gave any is named on the invoice by its account name. */
  private async buyerOf(accountId: number): Promise<BillingInfo> {
    const info = await this.d.store.billing.billingInfo(accountId);
    return info ?? { ...EMPTY, name: (await this.d.store.teams.get(accountId))?.name ?? '' };
  }

  /** The configured rate, or none for an EU business buyer in another EU country than the seller (reverse charge). */
  private taxFor(buyer: BillingInfo): { rate: number; note: string } {
    const { taxRatePercent, reverseChargeEu, seller } = this.d.config.billing;
    const crossBorderEu = EU.has(buyer.country) && EU.has(seller.country) && buyer.country !== seller.country;
    if (reverseChargeEu && crossBorderEu && buyer.taxId !== null) return { rate: 0, note: REVERSE_CHARGE_NOTE };
    return { rate: taxRatePercent, note: '' };
  }
}
