// The payments repository: each account's customer at the payment provider with its saved card, and the
// payments of credits by card with their state.
import type { Payment, PaymentState, SavedCard } from '../domain/payment.js';

export interface PaymentCustomer {
  customerId: string;
  card: SavedCard | null;
}

export type NewPayment = Pick<Payment, 'accountId' | 'credits' | 'amountMinor' | 'currency' | 'state'>;

export interface PaymentRepository {
  customer(accountId: number): Promise<PaymentCustomer | undefined>;
  saveCustomer(accountId: number, customerId: string): Promise<void>;
  /** The account's saved card; null removes it. */
  setCard(accountId: number, card: SavedCard | null): Promise<void>;
  create(p: NewPayment): Promise<Payment>;
  get(id: number): Promise<Payment | undefined>;
  byIntent(intentId: string): Promise<Payment | undefined>;
  /** Records what the provider answered: the intent's id (once known) and the state. */
  update(id: number, change: { intentId?: string; state: PaymentState; failureReason: string | null }): Promise<Payment | undefined>;
}
