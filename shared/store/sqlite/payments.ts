// Payment customers and payments in SQLite (migration 24).
import type { Sql } from './sql.js';
import { nowIso } from '../../time.js';
import type { Payment, PaymentState, SavedCard } from '../../domain/payment.js';
import type { NewPayment, PaymentCustomer, PaymentRepository } from '../payments.js';
import { decodeCustomer, decodePayment } from '../payment-row.js';

export class PaymentStore implements PaymentRepository {
  constructor(private readonly sql: Sql) {}

  async customer(accountId: number): Promise<PaymentCustomer | undefined> {
    const row = await this.sql.get('SELECT customer_id, card_json FROM payment_customers WHERE account_id = ?', [accountId]);
    return row && decodeCustomer(row);
  }

  async saveCustomer(accountId: number, customerId: string): Promise<void> {
    await this.sql.run('INSERT INTO payment_customers (account_id, customer_id, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO NOTHING', [
      accountId,
      customerId,
      nowIso(),
    ]);
  }

  async setCard(accountId: number, card: SavedCard | null): Promise<void> {
    await this.sql.run('UPDATE payment_customers SET card_json = ?, updated_at = ? WHERE account_id = ?', [card && JSON.stringify(card), nowIso(), accountId]);
  }

  async create(p: NewPayment): Promise<Payment> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      'INSERT INTO payments (account_id, credits, amount_minor, currency, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [p.accountId, p.credits, p.amountMinor, p.currency, p.state, now, now],
    );
    return decodePayment(row!);
  }

  async get(id: number): Promise<Payment | undefined> {
    const row = await this.sql.get('SELECT * FROM payments WHERE id = ?', [id]);
    return row && decodePayment(row);
  }

  async byIntent(intentId: string): Promise<Payment | undefined> {
    const row = await this.sql.get('SELECT * FROM payments WHERE intent_id = ?', [intentId]);
    return row && decodePayment(row);
  }

  async update(id: number, change: { intentId?: string; state: PaymentState; failureReason: string | null }): Promise<Payment | undefined> {
    const [row] = await this.sql.returning(
      'UPDATE payments SET intent_id = COALESCE(?, intent_id), state = ?, failure_reason = ?, updated_at = ? WHERE id = ? RETURNING *',
      [change.intentId ?? null, change.state, change.failureReason, nowIso(), id],
    );
    return row && decodePayment(row);
  }
}
