// Messages, their recipients and every delivery attempt. Recipient moves go through canMove (the one
// transition rule) and each one re-derives the message's status in the same transaction.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { limitOffset, type PageOf, type PageRequest } from './paging.js';
import { AccountStore } from './accounts.js';
import { nowIso } from '../time.js';
import { canMove, messageStatusOf, type MessageStatus, type RecipientState } from '../queue-state.js';
import { refreshStatus } from './message-status.js';
import { applyBounce, type Applied, type BounceInput } from './feedback-apply.js';

export type RecipientKind = 'to' | 'cc' | 'bcc';
export type MessageSource = 'http' | 'smtp';

export interface NewRecipient {
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: Extract<RecipientState, 'queued' | 'suppressed' | 'failed'>;
  reason: string;
}

export interface NewMessage {
  id: string;
  accountId: number;
  rootId: number;
  domainId: string | null;
  sendingKeyId: number | null;
  source: MessageSource;
  envelopeFrom: string;
  fromEmail: string;
  fromName: string;
  subject: string;
  to: Array<{ email: string; name?: string }>;
  replyTo: string | null;
  messageIdHeader: string;
  size: number;
  hasAttachments: boolean;
  headers: Record<string, string>;
  recipients: NewRecipient[];
  /** Credits taken from the pooled balance: one per recipient that will be sent. */
  cost: number;
  /** Set when no recipient can be sent: why the message failed. */
  error: string | null;
}

export interface MessageRow extends Record<string, unknown> {
  rowid: number;
  id: string;
  account_id: number;
  domain_id: string | null;
  sending_key_id: number | null;
  source: MessageSource;
  envelope_from: string;
  from_email: string;
  from_name: string;
  subject: string;
  to_json: string;
  reply_to: string | null;
  message_id_header: string;
  size: number;
  has_attachments: number;
  headers_json: string;
  status: MessageStatus;
  error: string | null;
  created_at: string;
  sent_at: string | null;
  updated_at: string;
}

export interface RecipientRow extends Record<string, unknown> {
  id: number;
  message_id: string;
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: RecipientState;
  reason: string;
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  last_reply: string | null;
  queued_at: number;
  updated_at: string;
}

export interface AttemptRow extends Record<string, unknown> {
  recipient_id: number;
  at: string;
  mx_host: string | null;
  ip: string | null;
  outcome: 'delivered' | 'deferred' | 'bounced' | 'failed';
  reply: string;
}

/** A recipient ready for delivery, with what the worker needs of its message. */
export interface DueRecipient {
  id: number;
  messageId: string;
  accountId: number;
  domainId: string | null;
  envelopeFrom: string;
  email: string;
  domain: string;
  attempts: number;
  queuedAt: number;
}

export interface AttemptResult {
  recipientId: number;
  to: Extract<RecipientState, 'sent' | 'deferred' | 'bounced' | 'failed'>;
  reply: string;
  mxHost: string | null;
  ip: string | null;
  /** For deferred: when to try next (epoch ms). */
  nextAttemptAt?: number;
  /** For bounced: whether the reply proves the address bad (the address is then suppressed). */
  hard?: boolean;
}

export interface MessageQuery extends PageRequest {
  status?: MessageStatus;
  domainId?: string;
  from?: string;
  to?: string;
  search?: string;
}

/** An FTS5 query that matches every word of the user's text as a prefix, with no operators of its own. */
export function ftsQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length ? words.map((w) => `"${w}"*`).join(' ') : null;
}

export class MessageStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Records an accepted message and its recipients, and takes its credits, in one transaction. Returns the
   * queued recipients and when they are due, from the writing transaction itself: a read through the reader
   * connection right after the commit may still see an older snapshot and miss them.
   */
  async insert(m: NewMessage): Promise<Array<{ id: number; due: number }> | 'insufficient_balance'> {
    // Grouped: concurrent submissions share one commit (one fsync) instead of queueing for one each.
    return this.sql.grouped(async (q) => {
      if (m.cost > 0 && !(await AccountStore.debit(q, m.rootId, m.cost))) return 'insufficient_balance';
      const now = nowIso();
      const status = messageStatusOf(m.recipients.map((r) => r.state));
      const { lastId: rowid } = await q.run(
        `INSERT INTO messages (id, account_id, domain_id, sending_key_id, source, envelope_from, from_email, from_name, subject, to_json,
           reply_to, message_id_header, size, has_attachments, headers_json, status, error, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [m.id, m.accountId, m.domainId, m.sendingKeyId, m.source, m.envelopeFrom, m.fromEmail, m.fromName, m.subject, JSON.stringify(m.to),
          m.replyTo, m.messageIdHeader, m.size, +m.hasAttachments, JSON.stringify(m.headers), status, m.error, now, now],
      );
      const queuedAt = Date.now();
      const due: Array<{ id: number; due: number }> = [];
      for (const r of m.recipients) {
        const { lastId } = await q.run(
          `INSERT INTO recipients (message_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [m.id, r.email, r.name, r.kind, r.domain, r.state, r.reason, r.state === 'queued' ? queuedAt : null, queuedAt, now],
        );
        if (r.state === 'queued') due.push({ id: lastId, due: queuedAt });
      }
      await q.run('INSERT INTO messages_fts (rowid, subject, from_email, recipients) VALUES (?, ?, ?, ?)', [
        rowid,
        m.subject,
        m.fromEmail,
        m.recipients.map((r) => `${r.email} ${r.name}`).join(' '),
      ]);
      return due;
    });
  }

  async get(id: string, accountId?: number): Promise<MessageRow | undefined> {
    const where = accountId === undefined ? 'id = ?' : 'id = ? AND account_id = ?';
    return this.sql.get<MessageRow>(`SELECT rowid, * FROM messages WHERE ${where}`, accountId === undefined ? [id] : [id, accountId]);
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all<{ message_id: string; n: number }>(
      `SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id IN (${messageIds.map(() => '?').join(',')}) GROUP BY message_id`,
      messageIds,
    );
    return new Map(rows.map((r) => [r.message_id, r.n]));
  }

  async recipientsOf(messageId: string): Promise<RecipientRow[]> {
    return this.sql.all<RecipientRow>('SELECT * FROM recipients WHERE message_id = ? ORDER BY id', [messageId]);
  }

  async attemptsOf(messageId: string): Promise<AttemptRow[]> {
    return this.sql.all<AttemptRow>(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = ? ORDER BY a.id',
      [messageId],
    );
  }

  async list(accountId: number, query: MessageQuery): Promise<PageOf<MessageRow>> {
    const clauses = ['m.account_id = ?'];
    const params: SqlValue[] = [accountId];
    const filter = (clause: string, value: SqlValue | undefined) => {
      if (value === undefined) return;
      clauses.push(clause);
      params.push(value);
    };
    filter('m.status = ?', query.status);
    filter('m.domain_id = ?', query.domainId);
    filter('m.created_at >= ?', query.from);
    filter('m.created_at <= ?', query.to);
    const match = query.search === undefined ? null : ftsQuery(query.search);
    if (query.search !== undefined && !match) return { rows: [], total: 0 };
    filter('m.rowid IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)', match ?? undefined);
    const where = clauses.join(' AND ');
    const rows = await this.sql.all<MessageRow>(
      `SELECT m.rowid, m.* FROM messages m WHERE ${where} ORDER BY m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
      [...params, ...limitOffset(query)],
    );
    const count = await this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM messages m WHERE ${where}`, params);
    return { rows, total: count?.n ?? 0 };
  }

  /** Every recipient still in flight and when it is due: what the scheduler rebuilds Redis from. */
  async inFlight(): Promise<Array<{ id: number; due: number }>> {
    const rows = await this.sql.all<{ id: number; due: number }>(
      `SELECT id, CASE WHEN state = 'sending' THEN COALESCE(lease_until, 0) ELSE COALESCE(next_attempt_at, 0) END AS due
       FROM recipients WHERE state IN ('queued', 'sending', 'deferred')`,
    );
    return rows;
  }

  /** Leases due recipients for delivery: each moves to `sending` until `leaseUntil` unless it is already leased. */
  async claim(ids: readonly number[], now: number, leaseUntil: number): Promise<DueRecipient[]> {
    if (!ids.length) return [];
    const marks = ids.map(() => '?').join(',');
    return this.sql.tx(async (q) => {
      const rows = await q.all<RecipientRow & { account_id: number; domain_id: string | null; envelope_from: string }>(
        `SELECT r.*, m.account_id, m.domain_id, m.envelope_from FROM recipients r JOIN messages m ON m.id = r.message_id
         WHERE r.id IN (${marks}) AND ((r.state IN ('queued', 'deferred') AND r.next_attempt_at <= ?) OR (r.state = 'sending' AND r.lease_until <= ?))`,
        [...ids, now, now],
      );
      for (const r of rows) {
        await q.run(`UPDATE recipients SET state = 'sending', lease_until = ?, updated_at = ? WHERE id = ?`, [leaseUntil, nowIso(), r.id]);
      }
      return rows.map((r) => ({
        id: r.id,
        messageId: r.message_id,
        accountId: r.account_id,
        domainId: r.domain_id,
        envelopeFrom: r.envelope_from,
        email: r.email,
        domain: r.domain,
        attempts: r.attempts,
        queuedAt: r.queued_at,
      }));
    });
  }

  /** Applies the results of delivery attempts: each recipient moves, the attempt is kept, the message status follows. */
  /**
   * Applies the results of delivery attempts in one transaction: each recipient moves, the attempt is kept,
   * a bounce or an expiry takes its effects (suppression, event) at once, and message statuses follow.
   * Returns the messages with no recipient left in flight (their spool file can go) and the bounces applied.
   */
  async recordAttempts(results: readonly AttemptResult[]): Promise<{ finished: string[]; bounces: Array<{ input: BounceInput; applied: Applied }> }> {
    return this.sql.tx(async (q) => {
      const touched = new Set<string>();
      const bounces: Array<{ input: BounceInput; applied: Applied }> = [];
      for (const result of results) {
        const messageId = await moveRecipient(q, result);
        if (!messageId) continue;
        touched.add(messageId);
        const input = bounceOf(result);
        const applied = input && (await applyBounce(q, input));
        if (input && applied) bounces.push({ input, applied });
      }
      const finished: string[] = [];
      for (const id of touched) if ((await refreshStatus(q, id)) !== 'pending') finished.push(id);
      return { finished, bounces };
    });
  }

  /** In-flight recipients whose due time passed `before` (lost from the Redis schedule, or a dead worker's lease). */
  async overdue(before: number, limit: number): Promise<Array<{ id: number; due: number }>> {
    return this.sql.all<{ id: number; due: number }>(
      `SELECT id, next_attempt_at AS due FROM recipients WHERE state IN ('queued', 'deferred') AND next_attempt_at < ?
       UNION ALL SELECT id, lease_until AS due FROM recipients WHERE state = 'sending' AND lease_until < ? LIMIT ?`,
      [before, before, limit],
    );
  }

  /** Returns leased recipients to the queue (graceful stop), due at once. */
  async release(ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    const marks = ids.map(() => '?').join(',');
    await this.sql.run(
      `UPDATE recipients SET state = 'deferred', lease_until = NULL, next_attempt_at = ?, updated_at = ? WHERE state = 'sending' AND id IN (${marks})`,
      [Date.now(), nowIso(), ...ids],
    );
  }

  async countByState(): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state');
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }
}

/** A bounced reply is a bounce; a recipient failed after its queue time is a soft bounce (expiry). */
function bounceOf(result: AttemptResult): BounceInput | null {
  if (result.to === 'bounced') return { recipientId: result.recipientId, hard: result.hard ?? false, reason: result.reply, source: 'smtp' };
  if (result.to === 'failed') return { recipientId: result.recipientId, hard: false, reason: result.reply, source: 'expiry' };
  return null;
}

async function moveRecipient(q: Queryable, result: AttemptResult): Promise<string | null> {
  const row = await q.get<{ state: RecipientState; message_id: string }>('SELECT state, message_id FROM recipients WHERE id = ?', [result.recipientId]);
  if (!row || !canMove(row.state, result.to)) return null;
  const now = nowIso();
  await q.run(
    `UPDATE recipients SET state = ?, attempts = attempts + 1, last_reply = ?, lease_until = NULL, next_attempt_at = ?, reason = ?, updated_at = ? WHERE id = ?`,
    [result.to, result.reply, result.to === 'deferred' ? (result.nextAttemptAt ?? Date.now()) : null, result.to === 'sent' ? '' : result.reply, now, result.recipientId],
  );
  // The domain's counters follow its recipients' final outcomes.
  if (result.to === 'sent' || result.to === 'bounced') {
    const column = result.to === 'sent' ? 'total_sent' : 'total_bounced';
    await q.run(`UPDATE domains SET ${column} = ${column} + 1 WHERE id = (SELECT domain_id FROM messages WHERE id = ?)`, [row.message_id]);
  }
  const outcome = result.to === 'sent' ? 'delivered' : result.to;
  await q.run('INSERT INTO attempts (recipient_id, at, mx_host, ip, outcome, reply) VALUES (?, ?, ?, ?, ?, ?)', [
    result.recipientId,
    now,
    result.mxHost,
    result.ip,
    outcome,
    result.reply,
  ]);
  return row.message_id;
}
