// Payments of credits by card: the saved card an account pays with, and the state of a payment or of saving a
// card (a closed union, as the provider reports it), with what the browser must do when the bank asks for it.

export interface SavedCard {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export const PAYMENT_STATES = ['succeeded', 'processing', 'requires_action', 'failed'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** A SetupIntent (saving a card) or PaymentIntent (a charge) as it stands. */
export interface IntentOutcome {
  /** seti_… or pi_… */
  intentId: string;
  state: PaymentState;
  /** For requires_action: the secret Stripe.js confirms with in the browser, and what it must do. */
  clientSecret: string | null;
  nextAction: string | null;
  /** For failed: the provider's reason (a decline's message). */
  failureReason: string | null;
  /** The card the intent used, when known. */
  card: SavedCard | null;
}

/** A payment of credits, as Tern keeps it. */
export interface Payment {
  id: number;
  accountId: number;
  /** The provider's PaymentIntent id; null until the provider answered the charge. */
  intentId: string | null;
  credits: number;
  amountMinor: number;
  currency: string;
  state: PaymentState;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a signed provider webhook tells: a payment succeeded or failed; anything else is acknowledged and ignored. */
export type PaymentEvent =
  | { kind: 'payment_succeeded'; intentId: string; paymentId: number | null }
  | { kind: 'payment_failed'; intentId: string; paymentId: number | null; reason: string }
  | { kind: 'ignored'; type: string };
