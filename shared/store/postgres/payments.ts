// Payment customers and payments in PostgreSQL. The first customer saved for an account stays: the primary key
// on account_id decides (ON CONFLICT DO NOTHING), so two checkouts racing keep one.
import type { PgSql } from './sql.js';
import { nowIso } from '../../time.js';
import type { Payment, PaymentState, SavedCard } from '../../domain/payment.js';
import type { NewPayment, PaymentCustomer, PaymentRepository } from '../payments.js';
import { decodeCustomer, decodePayment } from '../payment-row.js';

const COLUMNS = 'id, account_id, intent_id, credits, amount_minor, currency, state, failure_reason, created_at, updated_at';

export class PgPaymentStore implements PaymentRepository {
  constructor(private readonly sql: PgSql) {}

  async customer(accountId: number): Promise<PaymentCustomer | undefined> {
    const row = await this.sql.get('SELECT customer_id, card_json FROM payment_customers WHERE account_id = $1', [accountId]);
    return row && decodeCustomer(row);
  }

  async saveCustomer(accountId: number, customerId: string): Promise<void> {
    await this.sql.run('INSERT INTO payment_customers (account_id, customer_id, updated_at) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING', [
      accountId,
      customerId,
      nowIso(),
    ]);
  }

  async setCard(accountId: number, card: SavedCard | null): Promise<void> {
    await this.sql.run('UPDATE payment_customers SET card_json = $1, updated_at = $2 WHERE account_id = $3', [card && JSON.stringify(card), nowIso(), accountId]);
  }

  async create(p: NewPayment): Promise<Payment> {
    const now = nowIso();
    const row = await this.sql.get(
      `INSERT INTO payments (account_id, credits, amount_minor, currency, state, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [p.accountId, p.credits, p.amountMinor, p.currency, p.state, now, now],
    );
    return decodePayment(row!);
  }

  async get(id: number): Promise<Payment | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM payments WHERE id = $1`, [id]);
    return row && decodePayment(row);
  }

  async byIntent(intentId: string): Promise<Payment | undefined> {
    const row = await this.sql.get(`SELECT ${COLUMNS} FROM payments WHERE intent_id = $1`, [intentId]);
    return row && decodePayment(row);
  }

  async update(id: number, change: { intentId?: string; state: PaymentState; failureReason: string | null }): Promise<Payment | undefined> {
    const row = await this.sql.get(
      `UPDATE payments SET intent_id = COALESCE($1, intent_id), state = $2, failure_reason = $3, updated_at = $4 WHERE id = $5 RETURNING ${COLUMNS}`,
      [change.intentId ?? null, change.state, change.failureReason, nowIso(), id],
    );
    return row && decodePayment(row);
  }
}
