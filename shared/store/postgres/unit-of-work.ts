// The unit of work on PostgreSQL: row operations bound to one transaction's client. It decides nothing: the queue
// module (shared/queue/) asks for each operation. Every move is conditional in its own statement (on the lease
// token and state, or on the state it was read in) and answers what moved (RETURNING), so it stays right under READ
// COMMITTED with several processes: a row another transaction changed meanwhile is checked again, as committed, by
// the waiting statement itself. Operations take arrays, sent as array parameters: a batch costs a few statements.
import { Type } from '@sinclair/typebox';
import { ParamList, type Queryable } from './sql.js';
import { Int, rowDecoder, Text } from './decode.js';
import { nowIso } from '../../time.js';
import { OPERATION_APPLIES_TO, type RecipientState } from '../../domain/queue-state.js';
import { debitSends, refundUnsent } from './credits.js';
import { suppressionsListedAmong, upsertSuppression } from './suppressions.js';
import { PgAuditLogStore } from './audit-log.js';
import { dropBodies, markKept, recipientStates, setStatuses } from './message-status.js';
import { bumpFigures, moveDepths } from './figure-counters.js';
import { recordMessages } from './message-insert.js';
import { whereOf } from './queue-control.js';
import type { DepthBump, FigureBump, FigureState } from '../../domain/figures.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { NewSuppression } from '../suppressions.js';
import type { NewMessage } from '../message-log.js';
import type { QueueSelector } from '../queue-control.js';
import type {
  CounterBump,
  CounterRows,
  CreditRows,
  LeasedMove,
  LeaseNow,
  MessageRows,
  MessageStatusUpdate,
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

/** What a move answers of each recipient: with its message's domain, and its complaint mark (as 0/1). */
const MOVED = (r: string) =>
  `${r}.id, ${r}.message_id, ${r}.team_id, ${r}.email, (SELECT domain_id FROM messages WHERE messages.id = ${r}.message_id) AS domain_id, (${r}.complained_at IS NOT NULL)::int AS complained`;

/** The fence of a result: the row moves only while this token holds it in `sending`. */
const MOVE_IF_LEASED = `UPDATE recipients r SET state = v.to_state, attempts = r.attempts + 1, last_reply = v.reply, lease_until = NULL,
    next_attempt_at = v.next_at, reason = v.reason, hard_bounce = COALESCE(v.hard, r.hard_bounce), updated_at = $1
  FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::smallint[]) AS v(id, token, to_state, reply, next_at, reason, hard)
  WHERE r.id = v.id AND r.lease_token = v.token AND r.state = 'sending'
  RETURNING ${MOVED('r')}`;

class PgRecipientRows implements RecipientRows {
  constructor(private readonly q: Queryable) {}

  async moveIfLeased(moves: readonly LeasedMove[]): Promise<MovedRecipient[]> {
    if (!moves.length) return [];
    // The token stays on the row: it names the last holder in the log of a refused late result.
    const rows = await this.q.all(MOVE_IF_LEASED, [
      nowIso(),
      moves.map((m) => m.id),
      moves.map((m) => m.leaseToken),
      moves.map((m) => m.to),
      moves.map((m) => m.reply),
      moves.map((m) => m.nextAttemptAt),
      moves.map((m) => m.reason),
      moves.map((m) => (m.hardBounce === null ? null : +m.hardBounce)),
    ]);
    return rows.map(decodeMoved).sort((a, b) => a.id - b.id);
  }

  async leasesOf(ids: readonly number[]): Promise<LeaseNow[]> {
    if (!ids.length) return [];
    return (await this.q.all('SELECT id, state, lease_token FROM recipients WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).map(decodeLease);
  }

  async addAttempts(attempts: readonly NewAttempt[]): Promise<void> {
    if (!attempts.length) return;
    await this.q.run(
      `INSERT INTO attempts (recipient_id, at, mx_host, ip, outcome, reply)
       SELECT recipient_id, $1, mx_host, ip, outcome, reply FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
         WITH ORDINALITY AS a(recipient_id, mx_host, ip, outcome, reply, n) ORDER BY n`,
      [
        nowIso(),
        attempts.map((a) => a.recipientId),
        attempts.map((a) => a.mxHost),
        attempts.map((a) => a.ip),
        attempts.map((a) => a.outcome),
        attempts.map((a) => a.reply),
      ],
    );
  }

  async find(id: number): Promise<RecipientAsFound | undefined> {
    const row = await this.q.get(
      `SELECT r.id, r.state, r.email, r.message_id, r.complained_at, m.team_id, m.domain_id
       FROM recipients r JOIN messages m ON m.id = r.message_id WHERE r.id = $1`,
      [id],
    );
    return row && decodeFound(row);
  }

  async moveIfIn(id: number, from: RecipientState, to: RecipientState, reason: string | null): Promise<{ complained: boolean } | undefined> {
    const row = await this.q.get(
      'UPDATE recipients SET state = $1, reason = COALESCE($2, reason), updated_at = $3 WHERE id = $4 AND state = $5 RETURNING (complained_at IS NOT NULL)::int AS complained',
      [to, reason, nowIso(), id, from],
    );
    return row && { complained: decodeComplained(row) };
  }

  async markComplained(id: number): Promise<RecipientState | undefined> {
    // The statement leaves the state alone: what it returns is the state the complaint was marked in.
    const row = await this.q.get('UPDATE recipients SET complained_at = $1, updated_at = $1 WHERE id = $2 AND complained_at IS NULL RETURNING state', [nowIso(), id]);
    return row && decodeState(row);
  }

  async setHardBounce(ids: readonly number[], hard: boolean): Promise<void> {
    if (ids.length) await this.q.run('UPDATE recipients SET hard_bounce = $1 WHERE id = ANY($2::bigint[])', [+hard, ids]);
  }
}

class PgCreditRows implements CreditRows {
  constructor(private readonly q: Queryable) {}

  refund(countByMessage: ReadonlyMap<string, number>): Promise<void> {
    return refundUnsent(this.q, countByMessage, nowIso());
  }

  async payersOf(messageIds: readonly string[]): Promise<Map<string, number>> {
    const payers = new Map<string, number>();
    if (!messageIds.length) return payers;
    const rows = await this.q.all("SELECT DISTINCT reference, pool_id FROM credit_entries WHERE kind = 'send' AND reference = ANY($1::text[])", [messageIds]);
    for (const r of rows.map(decodePayer)) if (!payers.has(r.reference)) payers.set(r.reference, r.pool_id);
    return payers;
  }

  debitSends(payerId: number, sends: readonly PaidSend[]): Promise<boolean> {
    return debitSends(this.q, payerId, sends, nowIso());
  }

  async balanceOf(payerId: number): Promise<number> {
    const row = await this.q.get('SELECT credit_balance FROM teams WHERE id = $1', [payerId]);
    return row ? decodeBalance(row) : 0;
  }
}

class PgSuppressionRows implements SuppressionRows {
  constructor(private readonly q: Queryable) {}

  /** One upsert per entry, in order (the never-lower rule is the suppression repository's statement): a batch holds few bounces. */
  async upsert(entries: ReadonlyArray<NewSuppression & { teamId: number }>): Promise<void> {
    for (const { teamId, ...entry } of entries) await upsertSuppression(this.q, teamId, entry);
  }

  listedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>> {
    return suppressionsListedAmong(this.q, teamId, emails);
  }
}

const decodeEvent = rowDecoder('event', Type.Object({ id: Int, recipient_id: Int, type: Text }), (r) => r);

class PgOutboxRows implements OutboxRows {
  constructor(private readonly q: Queryable) {}

  /** One statement: the unique (recipient, type) makes a repeated event a no-op, and only the first of a pair repeated in the batch is added. */
  async add(events: readonly NewRecipientEvent[]): Promise<Array<number | null>> {
    if (!events.length) return [];
    const rows = await this.q.all(
      `INSERT INTO events (team_id, type, message_id, recipient_id, email, is_hard_bounce, reason, occurred_at)
       SELECT team_id, type, message_id, recipient_id, email, is_hard_bounce, reason, $1
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::smallint[], $8::text[])
         WITH ORDINALITY AS e(team_id, type, message_id, recipient_id, email, is_hard_bounce, reason, n)
       ORDER BY n
       ON CONFLICT (recipient_id, type) DO NOTHING RETURNING id, recipient_id, type`,
      [
        nowIso(),
        events.map((e) => e.teamId),
        events.map((e) => e.type),
        events.map((e) => e.messageId),
        events.map((e) => e.recipientId),
        events.map((e) => e.email),
        events.map((e) => (e.isHardBounce === null ? null : +e.isHardBounce)),
        events.map((e) => e.reason),
      ],
    );
    const added = new Map(rows.map(decodeEvent).map((r) => [`${r.recipient_id} ${r.type}`, r.id]));
    return events.map((e) => {
      const key = `${e.recipientId} ${e.type}`;
      const id = added.get(key) ?? null;
      added.delete(key);
      return id;
    });
  }
}

class PgCounterRows implements CounterRows {
  constructor(private readonly q: Queryable) {}

  /** Each domain's three totals moved by one statement; the domains are locked in id order first, as every writer locks them. */
  async bump(bumps: readonly CounterBump[]): Promise<void> {
    if (!bumps.length) return;
    await this.q.run(
      `WITH v AS (SELECT id, SUM(by) FILTER (WHERE counter = 'sent') AS sent, SUM(by) FILTER (WHERE counter = 'bounced') AS bounced,
           SUM(by) FILTER (WHERE counter = 'complained') AS complained
         FROM unnest($1::text[], $2::text[], $3::bigint[]) AS b(id, counter, by) GROUP BY id),
       locked AS MATERIALIZED (SELECT id FROM domains WHERE id IN (SELECT id FROM v) ORDER BY id FOR UPDATE)
       UPDATE domains d SET total_sent = d.total_sent + COALESCE(v.sent, 0), total_bounced = d.total_bounced + COALESCE(v.bounced, 0),
         total_complained = d.total_complained + COALESCE(v.complained, 0)
       FROM v JOIN locked ON locked.id = v.id WHERE d.id = v.id`,
      [bumps.map((b) => b.domainId), bumps.map((b) => b.counter), bumps.map((b) => b.by)],
    );
  }

  bumpFigures(bumps: readonly FigureBump[]): Promise<void> {
    return bumpFigures(this.q, bumps);
  }

  bumpDepths(bumps: readonly DepthBump[]): Promise<void> {
    return moveDepths(this.q, bumps);
  }
}

class PgMessageRows implements MessageRows {
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

const decodeDue = rowDecoder('due recipient', Type.Object({ due: Int }), (r) => r.due);
const decodeRequeued = rowDecoder('requeued recipient', Type.Object({ id: Int, message_id: Text, team_id: Int, due: Int, complained: Int }), (r) => r);

class PgQueueControlRows implements QueueControlRows {
  constructor(private readonly q: Queryable) {}

  async hold(selector: QueueSelector, from: RecipientState, now: number): Promise<MovedRecipient[]> {
    const p = new ParamList();
    const set = `held_at = ${p.add(now)}, updated_at = ${p.add(nowIso())}`;
    const where = whereOf(selector, [from], p);
    const rows = await this.q.all(`UPDATE recipients r SET state = 'held', ${set}, next_attempt_at = NULL WHERE ${where} RETURNING ${MOVED('r')}`, p.values);
    return rows.map(decodeMoved).sort((a, b) => a.id - b.id);
  }

  async release(selector: QueueSelector, attempted: boolean, to: RecipientState, now: number): Promise<Released[]> {
    const p = new ParamList();
    const [state, at, updated] = [p.add(to), p.add(now), p.add(nowIso())];
    const where = whereOf(selector, ['held'], p);
    // The time held is added to held_ms: the max queue age does not count it.
    const rows = await this.q.all(
      `UPDATE recipients r SET state = ${state}, held_ms = held_ms + CASE WHEN held_at IS NOT NULL AND held_at < ${at} THEN ${at} - held_at ELSE 0 END,
         held_at = NULL, next_attempt_at = ${at}, updated_at = ${updated}
       WHERE ${where} AND (attempts > 0) = ${p.add(attempted)} RETURNING ${MOVED('r')}, next_attempt_at AS due`,
      p.values,
    );
    return rows.map((r) => ({ ...decodeMoved(r), due: decodeDue(r) })).sort((a, b) => a.id - b.id);
  }

  async fail(selector: QueueSelector, reason: string): Promise<MovedFrom[]> {
    const moved: MovedFrom[] = [];
    // One statement per state it applies to, so that each moved recipient's former state is known (RETURNING
    // gives the new row only): the figures move from it.
    for (const from of OPERATION_APPLIES_TO.purge) {
      const p = new ParamList();
      const set = `reason = ${p.add(reason)}, updated_at = ${p.add(nowIso())}`;
      const where = whereOf(selector, [from], p);
      const rows = await this.q.all(
        `UPDATE recipients r SET state = 'failed', ${set}, next_attempt_at = NULL, held_at = NULL, lease_until = NULL WHERE ${where} RETURNING ${MOVED('r')}`,
        p.values,
      );
      moved.push(...rows.map((r) => ({ ...decodeMoved(r), from })));
    }
    return moved.sort((a, b) => a.id - b.id);
  }

  async requeueCandidates(selector: QueueSelector): Promise<RequeueCandidate[]> {
    const p = new ParamList();
    const where = whereOf(selector, OPERATION_APPLIES_TO.requeue, p);
    // Only messages whose body is kept: message_bodies holds the queue's messages and those kept for requeue.
    const rows = await this.q.all(
      `SELECT id, message_id, team_id, email, domain FROM recipients r WHERE ${where} AND EXISTS (SELECT 1 FROM message_bodies b WHERE b.message_id = r.message_id) ORDER BY id`,
      p.values,
    );
    return rows.map(decodeCandidate);
  }

  async requeue(ids: readonly number[], now: number): Promise<Requeued[]> {
    const moved: Requeued[] = [];
    if (!ids.length) return moved;
    const at = nowIso();
    // One statement per former state (RETURNING gives the new row only): the figures move from it.
    for (const from of OPERATION_APPLIES_TO.requeue) {
      // A new attempt: queued and due now, its age counted from now, its last reply kept for the log.
      const rows = await this.q.all(
        `UPDATE recipients SET state = 'queued', reason = '', next_attempt_at = $1, queued_at = $1, held_ms = 0, held_at = NULL, hard_bounce = NULL,
           lease_until = NULL, updated_at = $2
         WHERE id = ANY($3::bigint[]) AND state = $4 RETURNING id, message_id, team_id, next_attempt_at AS due, (complained_at IS NOT NULL)::int AS complained`,
        [now, at, ids, from],
      );
      moved.push(...rows.map(decodeRequeued).map((r) => ({ id: r.id, messageId: r.message_id, due: r.due, teamId: r.team_id, from, complained: r.complained !== 0 })));
    }
    return moved.sort((a, b) => a.id - b.id);
  }

  async unmarkKept(messageIds: readonly string[]): Promise<void> {
    if (messageIds.length) await this.q.run('UPDATE message_bodies SET kept_since = NULL WHERE message_id = ANY($1::text[])', [messageIds]);
  }
}

export class PgUnitOfWork implements UnitOfWork {
  readonly recipients: RecipientRows;
  readonly credits: CreditRows;
  readonly suppressions: SuppressionRows;
  readonly outbox: OutboxRows;
  readonly counters: CounterRows;
  readonly messages: MessageRows;
  readonly queueControl: QueueControlRows;

  constructor(private readonly q: Queryable) {
    this.recipients = new PgRecipientRows(q);
    this.credits = new PgCreditRows(q);
    this.suppressions = new PgSuppressionRows(q);
    this.outbox = new PgOutboxRows(q);
    this.counters = new PgCounterRows(q);
    this.messages = new PgMessageRows(q);
    this.queueControl = new PgQueueControlRows(q);
  }

  async addAudit(entry: NewAuditEntry): Promise<void> {
    await PgAuditLogStore.insert(this.q, entry);
  }
}
