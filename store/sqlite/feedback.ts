// What happens after delivery: bounces (synchronous, reported by DSN, or expiry), complaints, the
// suppressions they cause, and the event outbox that webhook delivery drains. Each report is applied in
// one transaction, so a crash leaves it either wholly applied or not at all.
import type { Sql } from './sql.js';
import { nowIso } from '../../shared/time.js';
import { applyBounce, applyComplaint, type Applied, type BounceInput, type ComplaintInput } from './feedback-apply.js';

export type { Applied, BounceInput, BounceSource, ComplaintInput } from './feedback-apply.js';

export interface OutboxEvent {
  id: number;
  accountId: number;
  type: 'bounced' | 'complaint';
  messageId: string;
  email: string;
  isHardBounce: boolean | null;
  reason: string;
  occurredAt: string;
}

export class FeedbackStore {
  constructor(private readonly sql: Sql) {}

  async recordBounce(input: BounceInput): Promise<Applied | null> {
    return this.sql.tx((q) => applyBounce(q, input));
  }

  async recordComplaint(input: ComplaintInput): Promise<Applied | null> {
    return this.sql.tx((q) => applyComplaint(q, input));
  }

  /** The recipient a message's Message-ID header and an address point at (ARF without a VERP address). */
  async recipientByMessageIdHeader(messageIdHeader: string, email: string | null): Promise<number | null> {
    const rows = await this.sql.all<{ id: number; email: string }>(
      'SELECT r.id, r.email FROM recipients r JOIN messages m ON m.id = r.message_id WHERE m.message_id_header = ?',
      [messageIdHeader],
    );
    if (rows.length === 1) return rows[0]!.id;
    return rows.find((r) => email !== null && r.email.toLowerCase() === email.toLowerCase())?.id ?? null;
  }

  async pendingEvents(limit: number): Promise<OutboxEvent[]> {
    const rows = await this.sql.all<{
      id: number; account_id: number; type: OutboxEvent['type']; message_id: string; email: string; is_hard_bounce: number | null; reason: string; occurred_at: string;
    }>(`SELECT * FROM events WHERE state = 'pending' ORDER BY id LIMIT ?`, [limit]);
    return rows.map((e) => ({
      id: e.id,
      accountId: e.account_id,
      type: e.type,
      messageId: e.message_id,
      email: e.email,
      isHardBounce: e.is_hard_bounce === null ? null : e.is_hard_bounce === 1,
      reason: e.reason,
      occurredAt: e.occurred_at,
    }));
  }

  async markDelivered(eventId: number): Promise<void> {
    await this.sql.run(`UPDATE events SET state = 'delivered' WHERE id = ?`, [eventId]);
  }

  async logDelivery(d: { webhookId: number; accountId: number; eventId: number; eventType: string; url: string; statusCode: number | null; error: string | null; latencyMs: number }): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_deliveries (webhook_id, account_id, event_id, event_type, url, status_code, error, latency_ms, attempted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [d.webhookId, d.accountId, d.eventId, d.eventType, d.url, d.statusCode, d.error, d.latencyMs, nowIso()],
    );
  }

  async deliveriesOf(accountId: number, limit = 100): Promise<Array<Record<string, unknown>>> {
    return this.sql.all('SELECT * FROM webhook_deliveries WHERE account_id = ? ORDER BY id DESC LIMIT ?', [accountId, limit]);
  }

  async pruneDeliveries(olderThanIso: string): Promise<number> {
    return (await this.sql.run('DELETE FROM webhook_deliveries WHERE attempted_at < ?', [olderThanIso])).changes;
  }

  /** Bounce and complaint rates of a team over recipients accepted since `sinceMs`. */
  async rates(accountId: number, sinceMs: number): Promise<{ volume: number; bounced: number; complained: number }> {
    const row = await this.sql.get<{ volume: number; bounced: number | null; complained: number | null }>(
      `SELECT COUNT(*) AS volume, SUM(r.state = 'bounced') AS bounced, SUM(r.complained_at IS NOT NULL) AS complained
       FROM recipients r JOIN messages m ON m.id = r.message_id
       WHERE m.account_id = ? AND m.created_at >= ? AND r.state IN ('sent', 'bounced', 'complained')`,
      [accountId, new Date(sinceMs).toISOString()],
    );
    return { volume: row?.volume ?? 0, bounced: row?.bounced ?? 0, complained: row?.complained ?? 0 };
  }

  /** Reports received on the MX port: recorded before they are processed, so a crash loses none. */
  async addReport(r: { id: string; mailFrom: string; rcptTo: string }): Promise<void> {
    await this.sql.run('INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at) VALUES (?, ?, ?, ?)', [r.id, r.mailFrom, r.rcptTo, nowIso()]);
  }

  async waitingReports(limit: number): Promise<Array<{ id: string; mail_from: string; rcpt_to: string }>> {
    return this.sql.all(`SELECT id, mail_from, rcpt_to FROM inbound_reports WHERE state = 'received' ORDER BY received_at LIMIT ?`, [limit]);
  }

  async finishReport(id: string, state: 'processed' | 'dropped', kind: string, detail: string): Promise<void> {
    await this.sql.run('UPDATE inbound_reports SET state = ?, kind = ?, detail = ?, processed_at = ? WHERE id = ?', [state, kind, detail, nowIso(), id]);
  }
}
