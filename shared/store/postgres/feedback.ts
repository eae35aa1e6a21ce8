// What happens after delivery, in PostgreSQL: the event outbox that webhook delivery drains, delivery records,
// reputation figures and inbound reports. Bounces and complaints are applied through the unit of work, their
// effects decided by the queue module.
import { ParamList, type PgSql } from './sql.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf } from '../paging.js';
import { nowIso } from '../../time.js';
import type { InboundReport, OutboxEvent, ReportVerdict, WebhookDeliveryRecord } from '../../domain/feedback.js';
import { bodyOf, oldestFirst } from '../report-rows.js';
import type { StatisticsRepository } from '../statistics.js';
import type { DeliveryQuery, FeedbackRepository, NewTestEvent, NewWebhookDelivery, ReputationFigures } from '../feedback.js';
import { decodeAddressed, decodeDelivery, decodeEvent, decodeReport } from '../feedback-row.js';

/** A delivery attempt the receiver accepted (it answered 2xx), and one it did not (no answer is NULL: failed). */
const SUCCEEDED = '(status_code BETWEEN 200 AND 299)';
const FAILED = '(status_code IS NULL OR status_code NOT BETWEEN 200 AND 299)';

const EVENT_COLUMNS = 'id, team_id, type, message_id, webhook_id, email, is_hard_bounce, reason, occurred_at, state';
const DELIVERY_COLUMNS = 'id, webhook_id, team_id, event_id, event_type, url, status_code, error, latency_ms, attempted_at';

/** A list of ids as one array parameter (`$n::bigint[]`): one statement text whatever the count, no limit on parameters. */
const idArray = (ids: readonly number[]): string => `{${ids.map((id) => String(Math.trunc(id))).join(',')}}`;

/** The WHERE clause of a team's delivery attempts matching a query, its values added to `params`. */
function deliveriesWhere(teamId: number, query: DeliveryQuery, params: ParamList): string {
  const clauses = [`team_id = ${params.add(teamId)}`];
  if (query.webhookId !== undefined) clauses.push(`webhook_id = ${params.add(query.webhookId)}`);
  if (query.result) clauses.push(query.result === 'succeeded' ? SUCCEEDED : FAILED);
  if (query.from) clauses.push(`attempted_at >= ${params.add(query.from)}`);
  if (query.to) clauses.push(`attempted_at <= ${params.add(query.to)}`);
  return clauses.join(' AND ');
}

/** What the reputation figures read: the statistics' counters, the one count of recipients by status. */
export type FigureCounts = Pick<StatisticsRepository, 'countByStatus'>;

export class PgFeedbackStore implements FeedbackRepository {
  /** `figures` counts recipients by status: the statistics repository, whose counters the figures come from. */
  constructor(
    private readonly sql: PgSql,
    private readonly figures: FigureCounts,
  ) {}

  async recipientByMessageIdHeader(messageIdHeader: string, email: string | null): Promise<number | null> {
    const rows = (
      await this.sql.all('SELECT r.id, r.email FROM recipients r JOIN messages m ON m.id = r.message_id WHERE m.message_id_header = $1', [messageIdHeader])
    ).map(decodeAddressed);
    if (rows.length === 1) return rows[0]!.id;
    return rows.find((r) => email !== null && r.email.toLowerCase() === email.toLowerCase())?.id ?? null;
  }

  async pendingEvents(limit: number): Promise<OutboxEvent[]> {
    return (await this.sql.all(`SELECT ${EVENT_COLUMNS} FROM events WHERE state = 'pending' ORDER BY id LIMIT $1`, [limit])).map(decodeEvent);
  }

  /**
   * Several MTAs' dispatchers claim at once: FOR UPDATE SKIP LOCKED passes over the events another claim is
   * taking right now, and a row a concurrent claim has just committed is re-checked against the lease (READ
   * COMMITTED re-reads a locked row's newest version), so no event is leased twice while its lease runs.
   */
  async claimEvents(limit: number, now: number, leaseUntil: number, token: string): Promise<OutboxEvent[]> {
    const rows = await this.sql.all(
      `UPDATE events SET claim_token = $1, claimed_until = $2
       WHERE id IN (SELECT id FROM events WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= $3) ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING ${EVENT_COLUMNS}`,
      [token, leaseUntil, now, limit],
    );
    return rows.map(decodeEvent).sort((a, b) => a.id - b.id);
  }

  /** Fenced on the token in the statement: a dispatcher whose claim was taken over changes nothing. */
  async finishEvent(eventId: number, token: string): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE events SET state = 'delivered', claim_token = NULL, claimed_until = NULL WHERE id = $1 AND claim_token = $2 AND state = 'pending'`,
      [eventId, token],
    );
    return done.changes === 1;
  }

  async releaseEvents(token: string): Promise<number> {
    return (await this.sql.run(`UPDATE events SET claim_token = NULL, claimed_until = NULL WHERE claim_token = $1 AND state = 'pending'`, [token])).changes;
  }

  async countPendingEvents(): Promise<number> {
    return countOf((await this.sql.get(`SELECT COUNT(*) AS n FROM events WHERE state = 'pending'`))!);
  }

  async eventsOf(messageId: string): Promise<OutboxEvent[]> {
    return (await this.sql.all(`SELECT ${EVENT_COLUMNS} FROM events WHERE message_id = $1 ORDER BY occurred_at, id`, [messageId])).map(decodeEvent);
  }

  async addTestEvent(e: NewTestEvent): Promise<OutboxEvent> {
    const row = await this.sql.get(
      `INSERT INTO events (team_id, type, webhook_id, email, is_hard_bounce, reason, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${EVENT_COLUMNS}`,
      [e.teamId, e.type, e.webhookId, e.email, e.isHardBounce === null ? null : +e.isHardBounce, e.reason, nowIso()],
    );
    return decodeEvent(row!);
  }

  async markDelivered(eventId: number): Promise<void> {
    await this.sql.run(`UPDATE events SET state = 'delivered' WHERE id = $1`, [eventId]);
  }

  async logDelivery(d: NewWebhookDelivery): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_deliveries (webhook_id, team_id, event_id, event_type, url, status_code, error, latency_ms, attempted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [d.webhookId, d.teamId, d.eventId, d.eventType, d.url, d.statusCode, d.error, d.latencyMs, nowIso()],
    );
  }

  async deliveriesOf(teamId: number, limit = 100): Promise<WebhookDeliveryRecord[]> {
    const rows = await this.sql.all(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE team_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT $2`, [
      teamId,
      limit,
    ]);
    return rows.map(decodeDelivery);
  }

  async deliveriesOfEvents(teamId: number, eventIds: readonly number[]): Promise<WebhookDeliveryRecord[]> {
    if (!eventIds.length) return [];
    const rows = await this.sql.all(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE team_id = $1 AND event_id = ANY($2::bigint[]) ORDER BY attempted_at, id`, [
      teamId,
      idArray(eventIds),
    ]);
    return rows.map(decodeDelivery);
  }

  async listDeliveries(teamId: number, query: DeliveryQuery): Promise<PageOf<WebhookDeliveryRecord>> {
    const params = new ParamList();
    const where = deliveriesWhere(teamId, query, params);
    const filterValues = [...params.values];
    const [limit, offset] = limitOffset(query);
    const rows = await this.sql.all(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY attempted_at DESC, id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    const count = await this.sql.get(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE ${where}`, filterValues);
    return { rows: rows.map(decodeDelivery), total: countOf(count!) };
  }

  async pruneDeliveries(olderThanIso: string): Promise<number> {
    return (await this.sql.run('DELETE FROM webhook_deliveries WHERE attempted_at < $1', [olderThanIso])).changes;
  }

  async rates(teamId: number, sinceMs: number): Promise<ReputationFigures> {
    const to = new Date().toISOString();
    const from = new Date(Math.min(sinceMs, Date.parse(to))).toISOString();
    const by = { sent: 0, bounced: 0, complained: 0 };
    for (const { status, n } of await this.figures.countByStatus(teamId, { from, to })) {
      if (status === 'sent' || status === 'bounced' || status === 'complained') by[status] += n;
    }
    return { volume: by.sent + by.bounced + by.complained, bounced: by.bounced, complained: by.complained };
  }

  /** One insert of every row over arrays (the body given once): the rows of one report, all committed or none. */
  async addReports(reports: readonly InboundReport[], body: Buffer): Promise<void> {
    if (!reports.length) return;
    await this.sql.run(
      `INSERT INTO inbound_reports (id, mail_from, rcpt_to, received_at, body)
       SELECT id, mail_from, rcpt_to, $4, $5 FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, mail_from, rcpt_to)`,
      [reports.map((r) => r.id), reports.map((r) => r.mailFrom), reports.map((r) => r.rcptTo), nowIso(), body],
    );
  }

  async waitingReports(limit: number): Promise<InboundReport[]> {
    const rows = await this.sql.all(`SELECT id, mail_from, rcpt_to FROM inbound_reports WHERE state = 'received' ORDER BY received_at, id LIMIT $1`, [limit]);
    return rows.map(decodeReport);
  }

  /**
   * Several MTAs' workers claim at once: FOR UPDATE SKIP LOCKED passes over the reports another claim is taking
   * right now, and a row a concurrent claim has just committed is re-checked against the lease (READ COMMITTED
   * re-reads a locked row's newest version), so no report is leased twice while its lease runs.
   */
  async claimReports(limit: number, now: number, leaseUntil: number, token: string): Promise<InboundReport[]> {
    const rows = await this.sql.all(
      `UPDATE inbound_reports SET claim_token = $1, claimed_until = $2
       WHERE id IN (SELECT id FROM inbound_reports WHERE state = 'received' AND body IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= $3)
                    ORDER BY received_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id, mail_from, rcpt_to, received_at`,
      [token, leaseUntil, now, limit],
    );
    return oldestFirst(rows).map(decodeReport);
  }

  async reportBody(id: string): Promise<Buffer | null> {
    const row = await this.sql.get(`SELECT body FROM inbound_reports WHERE id = $1 AND state = 'received'`, [id]);
    return row ? bodyOf(row) : null;
  }

  /** Fenced on the token in the statement: a worker whose claim was taken over changes nothing. */
  async finishReport(id: string, token: string, v: ReportVerdict): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE inbound_reports SET state = $1, kind = $2, detail = $3, processed_at = $4, body = NULL, claim_token = NULL, claimed_until = NULL
       WHERE id = $5 AND claim_token = $6 AND state = 'received'`,
      [v.state, v.kind, v.detail, nowIso(), id, token],
    );
    return done.changes === 1;
  }

  async releaseReports(token: string): Promise<number> {
    const released = await this.sql.run(`UPDATE inbound_reports SET claim_token = NULL, claimed_until = NULL WHERE claim_token = $1 AND state = 'received'`, [token]);
    return released.changes;
  }

  async attachReportBody(id: string, body: Buffer): Promise<boolean> {
    const done = await this.sql.run(`UPDATE inbound_reports SET body = $1 WHERE id = $2 AND state = 'received' AND body IS NULL`, [body, id]);
    return done.changes === 1;
  }

  async finishReportsWithoutBody(v: ReportVerdict): Promise<number> {
    const done = await this.sql.run(
      `UPDATE inbound_reports SET state = $1, kind = $2, detail = $3, processed_at = $4, claim_token = NULL, claimed_until = NULL WHERE state = 'received' AND body IS NULL`,
      [v.state, v.kind, v.detail, nowIso()],
    );
    return done.changes;
  }
}
