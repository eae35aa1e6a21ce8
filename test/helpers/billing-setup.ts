// A platform that invoices (offline payments, a seller, tax), as the billing tests (REST and pages) start it.
export const SELLER = {
  name: 'Tern Platform SAS',
  addressLines: ['12 rue des Postiers'],
  postalCode: '75011',
  city: 'Paris',
  region: '',
  country: 'FR',
  taxId: 'FR40303265045',
  invoiceEmail: 'billing@tern.example',
};

export const INVOICING = {
  billing: {
    provider: 'offline',
    lowBalanceThreshold: 0,
    lowBalanceCheckS: 60,
    currency: 'EUR',
    pricePerThousandCreditsMinor: 100,
    taxRatePercent: 20,
    reverseChargeEu: true,
    invoiceNumberPrefix: 'WEB-',
    seller: SELLER,
  },
};

/** A business customer in another EU country than the seller, with a valid VAT number (reverse charge), as the REST body gives it. */
export const GERMAN_CUSTOMER = {
  name: 'Kunde GmbH',
  address_lines: ['Hauptstraße 5'],
  postal_code: '10115',
  city: 'Berlin',
  country: 'DE',
  tax_id: 'DE136695976',
  invoice_email: 'rechnung@kunde.example',
};
