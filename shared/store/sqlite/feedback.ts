// What happens after delivery, in SQLite: the event outbox that webhook delivery drains, delivery records,
// reputation figures and inbound reports. Bounces and complaints are applied through the unit of work
// (unit-of-work.ts), their effects decided by the queue module.
import type { Sql, SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf } from '../paging.js';
import { nowIso } from '../../time.js';
import { chunksByParams } from './write-batch.js';
import { StatisticsStore } from './statistics.js';
import type { InboundReport, OutboxEvent, ReportVerdict, WebhookDeliveryRecord } from '../../domain/feedback.js';
import { bodyOf, oldestFirst } from '../report-rows.js';
import type { DeliveryQuery, FeedbackRepository, NewTestEvent, NewWebhookDelivery, ReputationFigures } from '../feedback.js';
import { decodeAddressed, decodeDelivery, decodeEvent, decodeReport } from '../feedback-row.js';

/** A delivery attempt the receiver accepted (it answered 2xx), and one it did not (no answer is NULL: failed). */
const SUCCEEDED = '(status_code BETWEEN 200 AND 299)';
const FAILED = '(status_code IS NULL OR status_code NOT BETWEEN 200 AND 299)';

/** An event's columns (not its claim: a lease is the dispatchers' business, not the event's). */
const EVENT_COLUMNS = 'id, team_id, type, message_id, webhook_id, email, is_hard_bounce, reason, occurred_at, state';

export class FeedbackStore implements FeedbackRepository {
  constructor(private readonly sql: Sql) {}

  async recipientByMessageIdHeader(messageIdHeader: string, email: string | null): Promise<number | null> {
    const rows = (
      await this.sql.all('SELECT r.id, r.email FROM recipients r JOIN messages m ON m.id = r.message_id WHERE m.message_id_header = ?', [messageIdHeader])
    ).map(decodeAddressed);
    if (rows.length === 1) return rows[0]!.id;
    return rows.find((r) => email !== null && r.email.toLowerCase() === email.toLowerCase())?.id ?? null;
  }

  async pendingEvents(limit: number): Promise<OutboxEvent[]> {
    return (await this.sql.all(`SELECT * FROM events WHERE state = 'pending' ORDER BY id LIMIT ?`, [limit])).map(decodeEvent);
  }

  /** One statement picks and leases the events: SQLite's single writer makes it atomic against other claims. */
  async claimEvents(limit: number, now: number, leaseUntil: number, token: string): Promise<OutboxEvent[]> {
    const rows = await this.sql.returning(
      `UPDATE events SET claim_token = ?, claimed_until = ?
       WHERE id IN (SELECT id FROM events WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY id LIMIT ?)
       RETURNING ${EVENT_COLUMNS}`,
      [token, leaseUntil, now, limit],
    );
    return rows.map(decodeEvent).sort((a, b) => a.id - b.id);
  }

  async finishEvent(eventId: number, token: string): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE events SET state = 'delivered', claim_token = NULL, claimed_until = NULL WHERE id = ? AND claim_token = ? AND state = 'pending'`,
      [eventId, token],
    );
    return done.changes === 1;
  }

  async releaseEvents(token: string): Promise<number> {
    return (await this.sql.run(`UPDATE events SET claim_token = NULL, claimed_until = NULL WHERE claim_token = ? AND state = 'pending'`, [token])).changes;
  }

  async countPendingEvents(): Promise<number> {
    const row = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM events WHERE state = 'pending'`);
    return row?.n ?? 0;
  }

  async eventsOf(messageId: string): Promise<OutboxEvent[]> {
    return (await this.sql.all('SELECT * FROM events WHERE message_id = ? ORDER BY occurred_at, id', [messageId])).map(decodeEvent);
  }

  async addTestEvent(e: NewTestEvent): Promise<OutboxEvent> {
    const [row] = await this.sql.returning(
      `INSERT INTO events (team_id, type, webhook_id, email, is_hard_bounce, reason, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [e.teamId, e.type, e.webhookId, e.email, e.isHardBounce === null ? null : e.isHardBounce ? 1 : 0, e.reason, nowIso()],
    );
    return decodeEvent(row!);
  }

  async markDelivered(eventId: number): Promise<void> {
    await this.sql.run(`UPDATE events SET state = 'delivered' WHERE id = ?`, [eventId]);
  }

  async logDelivery(d: NewWebhookDelivery): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_deliveries (webhook_id, team_id, event_id, event_type, url, status_code, error, latency_ms, attempted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [d.webhookId, d.teamId, d.eventId, d.eventType, d.url, d.statusCode, d.error, d.latencyMs, nowIso()],
    );
  }

  async deliveriesOf(teamId: number, limit = 100): Promise<WebhookDeliveryRecord[]> {
    const rows = await this.sql.all('SELECT * FROM webhook_deliveries WHERE team_id = ? ORDER BY attempted_at DESC, id DESC LIMIT ?', [teamId, limit]);
    return rows.map(decodeDelivery);
  }

  async deliveriesOfEvents(teamId: number, eventIds: readonly number[]): Promise<WebhookDeliveryRecord[]> {
    const found: WebhookDeliveryRecord[] = [];
    // A message of many recipients may have many events: chunked within the engine's limit on parameters.
    for (const chunk of chunksByParams(eventIds, 1)) {
      const marks = chunk.map(() => '?').join(', ');
      const rows = await this.sql.all(`SELECT * FROM webhook_deliveries WHERE team_id = ? AND event_id IN (${marks})`, [teamId, ...chunk]);
      found.push(...rows.map(decodeDelivery));
    }
    return found.sort((a, b) => a.attemptedAt.localeCompare(b.attemptedAt) || a.id - b.id);
  }

  async listDeliveries(teamId: number, query: DeliveryQuery): Promise<PageOf<WebhookDeliveryRecord>> {
    const clauses = ['team_id = ?'];
    const params: SqlValue[] = [teamId];
    if (query.webhookId !== undefined) {
      clauses.push('webhook_id = ?');
      params.push(query.webhookId);
    }
    if (query.result) clauses.push(query.result === 'succeeded' ? SUCCEEDED : FAILED);
    if (query.from) {
      clauses.push('attempted_at >= ?');
      params.push(query.from);
    }
    if (query.to) {
      clauses.push('attempted_at <= ?');
      params.push(query.to);
    }
    const where = clauses.join(' AND ');
    const rows = await this.sql.all(`SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY attempted_at DESC, id DESC LIMIT ? OFFSET ?`, [
      ...params,
      ...limitOffset(query),
    ]);
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE ${where}`, params);
    return { rows: rows.map(decodeDelivery), total: countOf(count!) };
  }

  async pruneDeliveries(olderThanIso: string): Promise<number> {
    return (await this.sql.run('DELETE FROM webhook_deliveries WHERE attempted_at < ?', [olderThanIso])).changes;
  }

  async rates(teamId: number, sinceMs: number): Promise<ReputationFigures> {
    // The statistics' counters: the one count of recipients by status every figure comes from (migration 31).
    const to = new Date().toISOString();
    const from = new Date(Math.min(sinceMs, Date.parse(to))).toISOString();
    const by = { sent: 0, bounced: 0, complained: 0 };
    for (const { status, n } of await new StatisticsStore(this.sql).countByStatus(teamId, { from, to })) {
      if (status === 'sent' || status === 'bounced' || status === 'complained') by[status] += n;
    }
    return { volume: by.sent + by.bounced + by.complained, bounced: by.bounced, complained: by.complained };
  }

  /** One multi-row insert: the rows of one report, all committed or none, each with the body. */
  async addReports(reports: readonly InboundReport[], body: Buffer): Promise<void> {
    if (!reports.length) return;
    const received = nowIso();
    const values = reports.map(() => '(?, ?, ?, ?, ?)').join(', ');
    await this.sql.run(
      `INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at, body) VALUES ${values}`,
      reports.flatMap((r) => [r.id, r.mailFrom, r.rcptTo, received, body]),
    );
  }

  async waitingReports(limit: number): Promise<InboundReport[]> {
    const rows = await this.sql.all(`SELECT id, mail_from, rcpt_to FROM inbound_reports WHERE state = 'received' ORDER BY received_at, id LIMIT ?`, [limit]);
    return rows.map(decodeReport);
  }

  /** One statement picks and leases the reports: SQLite's single writer makes it atomic against other claims. */
  async claimReports(limit: number, now: number, leaseUntil: number, token: string): Promise<InboundReport[]> {
    const rows = await this.sql.returning(
      `UPDATE inbound_reports SET claim_token = ?, claimed_until = ?
       WHERE id IN (SELECT id FROM inbound_reports WHERE state = 'received' AND body IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?)
                    ORDER BY received_at, id LIMIT ?)
       RETURNING id, mail_from, rcpt_to, received_at`,
      [token, leaseUntil, now, limit],
    );
    return oldestFirst(rows).map(decodeReport);
  }

  async reportBody(id: string): Promise<Buffer | null> {
    const row = await this.sql.get(`SELECT body FROM inbound_reports WHERE id = ? AND state = 'received'`, [id]);
    return row ? bodyOf(row) : null;
  }

  /** Fenced on the token in the statement: a worker whose claim was taken over changes nothing. */
  async finishReport(id: string, token: string, v: ReportVerdict): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE inbound_reports SET state = ?, kind = ?, detail = ?, processed_at = ?, body = NULL, claim_token = NULL, claimed_until = NULL
       WHERE id = ? AND claim_token = ? AND state = 'received'`,
      [v.state, v.kind, v.detail, nowIso(), id, token],
    );
    return done.changes === 1;
  }

  async releaseReports(token: string): Promise<number> {
    const released = await this.sql.run(`UPDATE inbound_reports SET claim_token = NULL, claimed_until = NULL WHERE claim_token = ? AND state = 'received'`, [token]);
    return released.changes;
  }

  async attachReportBody(id: string, body: Buffer): Promise<boolean> {
    const done = await this.sql.run(`UPDATE inbound_reports SET body = ? WHERE id = ? AND state = 'received' AND body IS NULL`, [body, id]);
    return done.changes === 1;
  }

  async finishReportsWithoutBody(v: ReportVerdict): Promise<number> {
    const done = await this.sql.run(
      `UPDATE inbound_reports SET state = ?, kind = ?, detail = ?, processed_at = ?, claim_token = NULL, claimed_until = NULL WHERE state = 'received' AND body IS NULL`,
      [v.state, v.kind, v.detail, nowIso()],
    );
    return done.changes;
  }
}
