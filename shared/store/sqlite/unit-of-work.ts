// The unit of work on SQLite: row operations bound to one transaction's connection. It decides nothing: the
// queue module (shared/queue/) asks for each operation. Moves are conditional in their own statement and
// answer what moved (RETURNING); operations take arrays so a batch of results costs a few statements.
import { Type } from '@sinclair/typebox';
import type { Queryable } from './sql.js';
import { Int, rowDecoder, Text } from './decode.js';
import { chunksByParams } from './write-batch.js';
import { nowIso } from '../../time.js';
import { OPERATION_APPLIES_TO, type RecipientState } from '../../domain/queue-state.js';
import type { DomainCounter } from '../../domain/outcome.js';
import { debitSends, refundUnsent } from './credits.js';
import { SuppressionStore } from './suppressions.js';
import { AuditLogStore } from './audit-log.js';
import { dropBodies, markKept, recipientStates, setStatuses } from './message-status.js';
import { bumpFigures } from './figure-counters.js';
import type { DepthBump, FigureBump, FigureState } from '../../domain/figures.js';
import { whereOf } from './queue-control.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { NewSuppression } from '../suppressions.js';
import type { NewMessage } from '../message-log.js';
import { recordMessages } from './message-insert.js';
import type { QueueSelector } from '../queue-control.js';
import type {
  CounterBump,
  CounterRows,
  CreditRows,
  LeasedMove,
  LeaseNow,
  MessageRows,
  MessageStatusUpdate,
  MovedDue,
  MovedFrom,
  MovedRecipient,
  NewAttempt,
  NewRecipientEvent,
  OutboxRows,
  PaidSend,
  QueueControlRows,
  RecipientAsFound,
  RecipientRows,
  Released,
  Requeued,
  RequeueCandidate,
  SuppressionRows,
  UnitOfWork,
} from '../unit-of-work.js';
import { decodeCandidate, decodeComplained, decodeFound, decodeLease, decodeMoved, decodeState } from '../recipient-row.js';
import { decodeBalance, decodeSendPayer as decodePayer } from '../credit-row.js';

const MOVED_COLUMNS =
  'id, message_id, team_id, email, (SELECT domain_id FROM messages WHERE messages.id = recipients.message_id) AS domain_id, complained_at IS NOT NULL AS complained';

const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

class SqliteRecipientRows implements RecipientRows {
  constructor(private readonly q: Queryable) {}

  async moveIfLeased(moves: readonly LeasedMove[]): Promise<MovedRecipient[]> {
    const moved: MovedRecipient[] = [];
    const now = nowIso();
    for (const chunk of chunksByParams(moves, 7)) {
      const values = chunk.map((m) => [m.id, m.leaseToken, m.to, m.reply, m.nextAttemptAt, m.reason, m.hardBounce === null ? null : +m.hardBounce]);
      // The fence is the statement's own condition: the row moves only while this token holds it in `sending`.
      // The token stays on the row: it names the last holder in the log of a refused late result.
      const rows = await this.q.all(
        `UPDATE recipients SET state = v.column3, attempts = attempts + 1, last_reply = v.column4, lease_until = NULL,
           next_attempt_at = v.column5, reason = v.column6, hard_bounce = COALESCE(v.column7, hard_bounce), updated_at = ?
         FROM (VALUES ${values.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}) AS v
         WHERE recipients.id = v.column1 AND recipients.lease_token = v.column2 AND recipients.state = 'sending'
         RETURNING recipients.id, recipients.message_id, recipients.team_id, recipients.email,
           (SELECT domain_id FROM messages WHERE messages.id = recipients.message_id) AS domain_id, recipients.complained_at IS NOT NULL AS complained`,
        [now, ...values.flat()],
      );
      moved.push(...rows.map(decodeMoved));
    }
    return moved;
  }

  async leasesOf(ids: readonly number[]): Promise<LeaseNow[]> {
    const found: LeaseNow[] = [];
    for (const chunk of chunksByParams(ids, 1)) {
      found.push(...(await this.q.all(`SELECT id, state, lease_token FROM recipients WHERE id IN (${marks(chunk.length)})`, chunk)).map(decodeLease));
    }
    return found;
  }

  async addAttempts(attempts: readonly NewAttempt[]): Promise<void> {
    const now = nowIso();
    for (const chunk of chunksByParams(attempts, 6)) {
      await this.q.run(
        `INSERT INTO attempts (recipient_id, at, mx_host, ip, outcome, reply) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((a) => [a.recipientId, now, a.mxHost, a.ip, a.outcome, a.reply]),
      );
    }
  }

  async find(id: number): Promise<RecipientAsFound | undefined> {
    const row = await this.q.get(
      `SELECT r.id, r.state, r.email, r.message_id, r.complained_at, m.team_id, m.domain_id
       FROM recipients r JOIN messages m ON m.id = r.message_id WHERE r.id = ?`,
      [id],
    );
    return row && decodeFound(row);
  }

  async moveIfIn(id: number, from: RecipientState, to: RecipientState, reason: string | null): Promise<{ complained: boolean } | undefined> {
    const row = await this.q.get(
      'UPDATE recipients SET state = ?, reason = COALESCE(?, reason), updated_at = ? WHERE id = ? AND state = ? RETURNING complained_at IS NOT NULL AS complained',
      [to, reason, nowIso(), id, from],
    );
    return row && { complained: decodeComplained(row) };
  }

  async markComplained(id: number): Promise<RecipientState | undefined> {
    const now = nowIso();
    // The statement leaves the state alone: what it returns is the state the complaint was marked in.
    const row = await this.q.get('UPDATE recipients SET complained_at = ?, updated_at = ? WHERE id = ? AND complained_at IS NULL RETURNING state', [now, now, id]);
    return row && decodeState(row);
  }

  async setHardBounce(ids: readonly number[], hard: boolean): Promise<void> {
    for (const chunk of chunksByParams(ids, 1)) await this.q.run(`UPDATE recipients SET hard_bounce = ? WHERE id IN (${marks(chunk.length)})`, [+hard, ...chunk]);
  }
}

class SqliteCreditRows implements CreditRows {
  constructor(private readonly q: Queryable) {}

  refund(countByMessage: ReadonlyMap<string, number>): Promise<void> {
    return refundUnsent(this.q, countByMessage, nowIso());
  }

  async payersOf(messageIds: readonly string[]): Promise<Map<string, number>> {
    const payers = new Map<string, number>();
    for (const chunk of chunksByParams(messageIds, 1)) {
      const rows = await this.q.all(`SELECT DISTINCT reference, pool_id FROM credit_entries WHERE kind = 'send' AND reference IN (${marks(chunk.length)})`, chunk);
      for (const r of rows.map(decodePayer)) if (!payers.has(r.reference)) payers.set(r.reference, r.pool_id);
    }
    return payers;
  }

  debitSends(payerId: number, sends: readonly PaidSend[]): Promise<boolean> {
    return debitSends(this.q, payerId, sends, nowIso());
  }

  async balanceOf(payerId: number): Promise<number> {
    const row = await this.q.get('SELECT credit_balance FROM teams WHERE id = ?', [payerId]);
    return row ? decodeBalance(row) : 0;
  }
}

class SqliteSuppressionRows implements SuppressionRows {
  constructor(private readonly q: Queryable) {}

  async upsert(entries: ReadonlyArray<NewSuppression & { teamId: number }>): Promise<void> {
    for (const { teamId, ...entry } of entries) await SuppressionStore.upsert(this.q, teamId, entry);
  }

  listedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>> {
    return SuppressionStore.listedAmong(this.q, teamId, emails);
  }
}

class SqliteOutboxRows implements OutboxRows {
  constructor(private readonly q: Queryable) {}

  async add(events: readonly NewRecipientEvent[]): Promise<Array<number | null>> {
    const ids: Array<number | null> = [];
    const now = nowIso();
    for (const e of events) {
      // The unique index on (recipient, type) makes a repeated event a no-op.
      const res = await this.q.run(
        `INSERT OR IGNORE INTO events (team_id, type, message_id, recipient_id, email, is_hard_bounce, reason, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [e.teamId, e.type, e.messageId, e.recipientId, e.email, e.isHardBounce === null ? null : +e.isHardBounce, e.reason, now],
      );
      ids.push(res.changes ? res.lastId : null);
    }
    return ids;
  }
}

const COUNTER_COLUMNS: Readonly<Record<DomainCounter, string>> = { sent: 'total_sent', bounced: 'total_bounced', complained: 'total_complained' };

class SqliteCounterRows implements CounterRows {
  constructor(private readonly q: Queryable) {}

  async bump(bumps: readonly CounterBump[]): Promise<void> {
    for (const { domainId, counter, by } of bumps) {
      const column = COUNTER_COLUMNS[counter];
      await this.q.run(`UPDATE domains SET ${column} = ${column} + ? WHERE id = ?`, [by, domainId]);
    }
  }

  bumpFigures(bumps: readonly FigureBump[]): Promise<void> {
    return bumpFigures(this.q, bumps);
  }

  async bumpDepths(bumps: readonly DepthBump[]): Promise<void> {
    for (const chunk of chunksByParams(bumps, 2)) {
      await this.q.run(
        `INSERT INTO queue_depths (team_id, n) VALUES ${chunk.map(() => '(?, ?)').join(', ')} ON CONFLICT (team_id) DO UPDATE SET n = n + excluded.n`,
        chunk.flatMap((b) => [b.teamId, b.by]),
      );
    }
  }
}

class SqliteMessageRows implements MessageRows {
  constructor(private readonly q: Queryable) {}

  record(messages: readonly NewMessage[]): Promise<Array<Array<{ id: number; due: number }>>> {
    return recordMessages(this.q, messages);
  }

  recipientStates(messageIds: readonly string[]): Promise<Map<string, FigureState[]>> {
    return recipientStates(this.q, messageIds);
  }

  setStatuses(updates: readonly MessageStatusUpdate[]): Promise<void> {
    return setStatuses(this.q, updates);
  }

  dropBodies(messageIds: readonly string[]): Promise<void> {
    return dropBodies(this.q, messageIds);
  }

  markKept(messageIds: readonly string[]): Promise<void> {
    return markKept(this.q, messageIds);
  }
}

const decodeDue = rowDecoder('due recipient', Type.Object({ id: Int, message_id: Text, due: Int }), (r): MovedDue => ({ id: r.id, messageId: r.message_id, due: r.due }));
const decodeTeam = rowDecoder('recipient team', Type.Object({ team_id: Int }), (r) => r.team_id);

class SqliteQueueControlRows implements QueueControlRows {
  constructor(private readonly q: Queryable) {}

  async hold(selector: QueueSelector, from: RecipientState, now: number): Promise<MovedRecipient[]> {
    const [where, params] = whereOf(selector, [from]);
    const rows = await this.q.all(`UPDATE recipients SET state = 'held', held_at = ?, next_attempt_at = NULL, updated_at = ? WHERE ${where} RETURNING ${MOVED_COLUMNS}`, [
      now,
      nowIso(),
      ...params,
    ]);
    return rows.map(decodeMoved);
  }

  async release(selector: QueueSelector, attempted: boolean, to: RecipientState, now: number): Promise<Released[]> {
    const [where, params] = whereOf(selector, ['held']);
    // The time held is added to held_ms: the max queue age does not count it.
    const rows = await this.q.all(
      `UPDATE recipients SET state = ?, held_ms = held_ms + CASE WHEN held_at IS NOT NULL AND held_at < ? THEN ? - held_at ELSE 0 END,
         held_at = NULL, next_attempt_at = ?, updated_at = ?
       WHERE ${where} AND (attempts > 0) = ? RETURNING ${MOVED_COLUMNS}, next_attempt_at AS due`,
      [to, now, now, now, nowIso(), ...params, +attempted],
    );
    return rows.map((r) => ({ ...decodeMoved(r), due: decodeDue(r).due }));
  }

  async fail(selector: QueueSelector, reason: string): Promise<MovedFrom[]> {
    const moved: MovedFrom[] = [];
    // One statement per state it applies to, so that each moved recipient's former state is known (RETURNING
    // gives the new row only): the figures move from it.
    for (const from of OPERATION_APPLIES_TO.purge) {
      const [where, params] = whereOf(selector, [from]);
      const rows = await this.q.all(
        `UPDATE recipients SET state = 'failed', reason = ?, next_attempt_at = NULL, held_at = NULL, lease_until = NULL, updated_at = ?
         WHERE ${where} RETURNING ${MOVED_COLUMNS}`,
        [reason, nowIso(), ...params],
      );
      moved.push(...rows.map((r) => ({ ...decodeMoved(r), from })));
    }
    return moved.sort((a, b) => a.id - b.id);
  }

  async requeueCandidates(selector: QueueSelector): Promise<RequeueCandidate[]> {
    const [where, params] = whereOf(selector, OPERATION_APPLIES_TO.requeue);
    // Only messages whose body is kept: message_bodies holds the queue's messages and those kept for requeue.
    const rows = await this.q.all(
      `SELECT id, message_id, team_id, email, domain FROM recipients WHERE ${where} AND message_id IN (SELECT message_id FROM message_bodies)`,
      params,
    );
    return rows.map(decodeCandidate);
  }

  async requeue(ids: readonly number[], now: number): Promise<Requeued[]> {
    const moved: Requeued[] = [];
    const at = nowIso();
    // One statement per former state (RETURNING gives the new row only): the figures move from it.
    for (const from of OPERATION_APPLIES_TO.requeue) {
      for (const chunk of chunksByParams(ids, 1)) {
        // A new attempt: queued and due now, its age counted from now, its last reply kept for the log.
        const rows = await this.q.all(
          `UPDATE recipients SET state = 'queued', reason = '', next_attempt_at = ?, queued_at = ?, held_ms = 0, held_at = NULL, hard_bounce = NULL,
             lease_until = NULL, updated_at = ?
           WHERE id IN (${marks(chunk.length)}) AND state = ? RETURNING id, message_id, team_id, next_attempt_at AS due, complained_at IS NOT NULL AS complained`,
          [now, now, at, ...chunk, from],
        );
        moved.push(...rows.map((r) => ({ ...decodeDue(r), teamId: decodeTeam(r), from, complained: decodeComplained(r) })));
      }
    }
    return moved.sort((a, b) => a.id - b.id);
  }

  async unmarkKept(messageIds: readonly string[]): Promise<void> {
    for (const chunk of chunksByParams(messageIds, 1)) {
      await this.q.run(`UPDATE message_bodies SET kept_since = NULL WHERE message_id IN (${marks(chunk.length)})`, chunk);
    }
  }
}

export class SqliteUnitOfWork implements UnitOfWork {
  readonly recipients: RecipientRows;
  readonly credits: CreditRows;
  readonly suppressions: SuppressionRows;
  readonly outbox: OutboxRows;
  readonly counters: CounterRows;
  readonly messages: MessageRows;
  readonly queueControl: QueueControlRows;

  constructor(private readonly q: Queryable) {
    this.recipients = new SqliteRecipientRows(q);
    this.credits = new SqliteCreditRows(q);
    this.suppressions = new SqliteSuppressionRows(q);
    this.outbox = new SqliteOutboxRows(q);
    this.counters = new SqliteCounterRows(q);
    this.messages = new SqliteMessageRows(q);
    this.queueControl = new SqliteQueueControlRows(q);
  }

  async addAudit(entry: NewAuditEntry): Promise<void> {
    await AuditLogStore.insert(this.q, entry);
  }
}
