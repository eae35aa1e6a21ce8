// Payment customers' and payments' rows as both engines store them (the same columns in SQLite and PostgreSQL),
// decoded.
import { Type } from '@sinclair/typebox';
import { Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { PAYMENT_STATES, type Payment } from '../domain/payment.js';
import type { PaymentCustomer } from './payments.js';

const decodeCard = jsonDecoder('saved card', Type.Object({ paymentMethodId: Text, brand: Text, last4: Text, expMonth: Int, expYear: Int }));

export const decodeCustomer = rowDecoder('payment customer', Type.Object({ customer_id: Text, card_json: Nullable(Text) }), (r): PaymentCustomer => ({
  customerId: r.customer_id,
  card: r.card_json === null ? null : decodeCard(r.card_json),
}));

export const decodePayment = rowDecoder(
  'payment',
  Type.Object({
    id: Int,
    account_id: Int,
    intent_id: Nullable(Text),
    credits: Int,
    amount_minor: Int,
    currency: Text,
    state: OneOf(PAYMENT_STATES),
    failure_reason: Nullable(Text),
    created_at: Text,
    updated_at: Text,
  }),
  (r): Payment => ({
    id: r.id,
    accountId: r.account_id,
    intentId: r.intent_id,
    credits: r.credits,
    amountMinor: r.amount_minor,
    currency: r.currency,
    state: r.state,
    failureReason: r.failure_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
);
