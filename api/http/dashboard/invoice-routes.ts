// The account's billing info and invoices, for its owner: GET/POST /api/account/billing-info, GET
// /api/account/billing/invoices, GET /api/account/billing/invoice/{invoice_id} (the PDF) and POST
// /api/account/billing/invoice/{invoice_id}/billing-info (re-issued with corrected billing info, the same number).
// Rules are the core's (core/billing.ts), and so is the PDF (billing/invoice-pdf.ts).
import { Type } from '@sinclair/typebox';
import type { BillingInfo, Invoice } from '../../../shared/domain/billing.js';
import { accountIdOf } from '../../../shared/domain/team.js';
import type { BillingInfoChange } from '../../../shared/core/billing.js';
import { DIGITS, endpoint, StreamedBody, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { collectionArgs, pageReply } from './collection.js';
import { sentAsNull } from './params.js';

type Route = DashboardRoute<DashboardCaller>;

const billingInfoView = (b: BillingInfo) => ({
  name: b.name,
  address_lines: b.addressLines,
  postal_code: b.postalCode,
  city: b.city,
  region: b.region,
  country: b.country,
  tax_id: b.taxId,
  invoice_email: b.invoiceEmail,
});

const invoiceView = (i: Invoice) => ({
  id: i.id,
  number: i.number,
  revision: i.revision,
  payment_reference: i.paymentReference,
  currency: i.currency,
  subtotal_minor: i.subtotalMinor,
  tax_rate_percent: i.taxRatePercent,
  tax_minor: i.taxMinor,
  total_minor: i.totalMinor,
  tax_note: i.taxNote,
  lines: i.lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount_minor: l.unitAmountMinor, amount_minor: l.amountMinor })),
  seller: billingInfoView(i.seller),
  buyer: billingInfoView(i.buyer),
  issued_at: i.issuedAt,
  revised_at: i.revisedAt,
});

const nullableText = (description: string, maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()], { description }));

/** The billing info fields a client may send; each left out stays as it is. */
const billingInfoArgs = {
  name: Type.Optional(Type.String({ description: 'Who is invoiced: a company or a person.', maxLength: 200 })),
  address_lines: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { description: 'Street lines, 1 to 3.', maxItems: 3 })),
  postal_code: Type.Optional(Type.String({ description: 'Postal code.', maxLength: 20 })),
  city: Type.Optional(Type.String({ description: 'City.', maxLength: 100 })),
  region: Type.Optional(Type.String({ description: 'Region or state, if any.', maxLength: 100 })),
  country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 country code, in capitals.', maxLength: 2 })),
  tax_id: nullableText('A VAT number with its country prefix (checked for its country), another tax id, or null for none.', 40),
  invoice_email: nullableText('Where invoices are mailed; null for the account owner.', 254),
};

interface BillingInfoParams {
  name?: string;
  address_lines?: string[];
  postal_code?: string;
  city?: string;
  region?: string;
  country?: string;
  tax_id?: string | null;
  invoice_email?: string | null;
}

/** The change the params ask for; a tax id or invoice email sent as null removes it. */
const changeOf = (p: BillingInfoParams, body: unknown): BillingInfoChange => ({
  name: p.name,
  addressLines: p.address_lines,
  postalCode: p.postal_code,
  city: p.city,
  region: p.region,
  country: p.country,
  taxId: sentAsNull(body, 'tax_id') ? null : p.tax_id,
  invoiceEmail: sentAsNull(body, 'invoice_email') ? null : p.invoice_email,
});

const given = (change: BillingInfoChange): BillingInfoChange => Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));

const billingInfo: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing-info',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'owner',
      summary: "The account's billing info (null until set): who is invoiced, where, under which tax id",
      args: Type.Object({}),
      async handle({ ctx, user }) {
        const info = await ctx.core.billing.info(accountIdOf(signedIn(user).acting));
        return { body: info && billingInfoView(info) };
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary: "Changes the account's billing info (the fields given; the first time name, address_lines, city and country are needed); a refused field changes nothing",
      args: Type.Object(billingInfoArgs),
      async handle({ ctx, user, params, request, log }) {
        const saved = valueOf(await ctx.core.billing.updateInfo(accountIdOf(signedIn(user).acting), given(changeOf(params, request.body)), log));
        return { body: saved && billingInfoView(saved) };
      },
    }),
  ],
};

const invoices: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing/invoices',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'owner',
      summary: "The account's invoices, newest first",
      args: Type.Object(collectionArgs),
      async handle({ ctx, user, params, request }) {
        const page = await ctx.core.billing.invoices(accountIdOf(signedIn(user).acting), { page: params.page, perPage: params.per_page });
        return pageReply(request, params, page.rows.map(invoiceView), page.total);
      },
    }),
  ],
};

const invoiceId = { invoice_id: Type.Integer({ description: 'The invoice id.', minimum: 1 }) };

const invoice: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing/invoice/{invoice_id}',
  vars: { invoice_id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'owner',
      summary: 'An invoice as a PDF: seller and buyer, lines, tax and totals, its number and revision',
      args: Type.Object(invoiceId),
      async handle({ ctx, user, params }) {
        const { invoice: found, pdf } = valueOf(await ctx.core.billing.invoiceDocument(accountIdOf(signedIn(user).acting), params.invoice_id));
        const name = `${found.number}${found.revision > 1 ? `-r${found.revision}` : ''}.pdf`;
        return { body: new StreamedBody('application/pdf', pdf), headers: { 'Content-Disposition': `attachment; filename="${name}"` } };
      },
    }),
  ],
};

const reissue: Route = {
  namespace: 'tern/v2',
  path: '/api/account/billing/invoice/{invoice_id}/billing-info',
  vars: { invoice_id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'owner',
      summary: "Re-issues an invoice with the account's billing info, corrected first by the fields given: the same number, the next revision",
      args: Type.Object({ ...invoiceId, ...billingInfoArgs }),
      async handle({ ctx, user, params, request, log }) {
        const revised = valueOf(await ctx.core.billing.reissue(accountIdOf(signedIn(user).acting), params.invoice_id, given(changeOf(params, request.body)), log));
        return { body: invoiceView(revised) };
      },
    }),
  ],
};

export const invoiceRoutes: readonly Route[] = [billingInfo, invoices, invoice, reissue];
