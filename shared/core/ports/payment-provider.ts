// The one interface Tern takes card payments through (Stripe is its implementation; an offline platform has
// none): a customer per account, a card saved for payments made later without the customer (off-session), a
// charge of that card, the state of an intent, removing the card, and the provider's signed webhooks.
import type { IntentOutcome, PaymentEvent, SavedCard } from '../../domain/payment.js';

/** The metadata key naming Tern's payment on a charge: a webhook may come before Tern stored the intent's id. */
export const PAYMENT_ID_KEY = 'tern_payment_id';

export interface ChargeRequest {
  customerId: string;
  paymentMethodId: string;
  amountMinor: number;
  currency: string;
  /** The same key for a retry of the same charge: the provider charges once. */
  idempotencyKey: string;
  description: string;
  metadata: Record<string, string>;
}

export interface PaymentProvider {
  readonly name: 'stripe';
  /** The publishable key the browser's Stripe.js uses. */
  readonly publishableKey: string | null;
  createCustomer(accountId: number, name: string, email: string | null): Promise<string>;
  /** Confirms a SetupIntent for off-session use with a confirmation token from the browser; a saved card becomes the default. */
  saveCard(customerId: string, confirmationToken: string): Promise<IntentOutcome>;
  /** The state of a SetupIntent (seti_…) or PaymentIntent (pi_…), and the customer it belongs to. */
  intent(intentId: string): Promise<{ outcome: IntentOutcome; customerId: string | null } | undefined>;
  charge(c: ChargeRequest): Promise<IntentOutcome>;
  card(paymentMethodId: string): Promise<SavedCard>;
  /** Makes a saved card the customer's default for later charges (after a card saved through authentication). */
  makeDefault(customerId: string, paymentMethodId: string): Promise<void>;
  detach(paymentMethodId: string): Promise<void>;
  /** The event of a webhook whose signature holds, or undefined when it does not. */
  webhookEvent(rawBody: Buffer, signature: string): PaymentEvent | undefined;
}
