// An operator's reads and moves of the queue in SQLite. Recipients are chosen by team, destination, state, age
// or message on the partial indexes of the queue (recipients_in_flight, recipients_in_flight_by_team,
// recipients_held), so the log's history is never read. Each move, its consequences (refunds, soft bounces,
// message statuses) and its audit entry commit in one transaction.
import { Type } from '@sinclair/typebox';
import type { Queryable, Sql, SqlValue } from './sql.js';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { AuditLogStore } from './audit-log.js';
import { SuppressionStore } from './suppressions.js';
import { groupBy } from '../../group-by.js';
import { debitSends, refundUnsent } from './credits.js';
import { chunksByParams } from './write-batch.js';
import { refreshStatuses } from './message-status.js';
import { applyFeedbackAfterMove } from './feedback-apply.js';
import { nowIso } from '../../time.js';
import { IN_QUEUE, OPERATION_APPLIES_TO, RECIPIENT_STATES, type QueueOperation, type RecipientState } from '../../domain/queue-state.js';
import { effectsOf } from '../../domain/outcome.js';
import type { Applied, BounceInput } from '../feedback.js';
import type {
  ChangedRecipient,
  DestinationSummary,
  DueAgain,
  PurgeOutcome,
  QueueAudit,
  QueueControlRepository,
  QueuedRecipient,
  QueueSelector,
  RequeueOutcome,
} from '../queue-control.js';

const decodeQueued = rowDecoder(
  'queued recipient',
  Type.Object({
    id: Int,
    message_id: Text,
    team_id: Int,
    email: Text,
    domain: Text,
    state: OneOf(RECIPIENT_STATES),
    attempts: Int,
    next_attempt_at: Nullable(Int),
    last_reply: Nullable(Text),
    queued_at: Int,
    held_at: Nullable(Int),
  }),
  (r): QueuedRecipient => ({
    id: r.id,
    messageId: r.message_id,
    teamId: r.team_id,
    email: r.email,
    domain: r.domain,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastReply: r.last_reply,
    queuedAt: r.queued_at,
    heldAt: r.held_at,
  }),
);

const decodeDestination = rowDecoder(
  'destination summary',
  Type.Object({ domain: Text, total: Int, queued: Int, sending: Int, deferred: Int, held: Int, oldest: Int }),
  (r): Omit<DestinationSummary, 'lastError'> => ({
    domain: r.domain,
    total: r.total,
    queued: r.queued,
    sending: r.sending,
    deferred: r.deferred,
    held: r.held,
    oldestQueuedAt: r.oldest,
  }),
);

const decodeLastError = rowDecoder('last error', Type.Object({ domain: Text, last_reply: Text }), (r) => r);
const decodeChanged = rowDecoder('changed recipient', Type.Object({ id: Int, message_id: Text }), (r): ChangedRecipient => ({ id: r.id, messageId: r.message_id }));
const decodeDue = rowDecoder('due recipient', Type.Object({ id: Int, message_id: Text, due: Int }), (r): DueAgain => ({ id: r.id, messageId: r.message_id, due: r.due }));

const quoted = (states: readonly RecipientState[]) => states.map((s) => `'${s}'`).join(', ');

/**
 * The WHERE clause of a selector and its params, limited to `within` (the states an operation applies to).
 * The states are the domain's own constants, never a caller's text, so they are written into the statement:
 * SQLite then matches them to the partial indexes' conditions.
 */
function whereOf(selector: QueueSelector, within: readonly RecipientState[]): [string, SqlValue[]] {
  const states = selector.states ? within.filter((s) => selector.states!.includes(s)) : within;
  const terms = [states.length ? `state IN (${quoted(states)})` : '0 = 1'];
  const params: SqlValue[] = [];
  const add = (term: string, value: SqlValue) => {
    terms.push(term);
    params.push(value);
  };
  if (selector.teamId !== undefined) add('team_id = ?', selector.teamId);
  if (selector.domain !== undefined) add('domain = ?', selector.domain);
  if (selector.queuedBefore !== undefined) add('queued_at < ?', selector.queuedBefore);
  if (selector.messageId !== undefined) add('message_id = ?', selector.messageId);
  return [terms.join(' AND '), params];
}

const within = (operation: QueueOperation) => OPERATION_APPLIES_TO[operation];
const howMany = (changed: readonly unknown[]) => changed.length;

export class QueueControlStore implements QueueControlRepository {
  constructor(private readonly sql: Sql) {}

  async listQueued(selector: QueueSelector, limit: number): Promise<QueuedRecipient[]> {
    const [where, params] = whereOf(selector, IN_QUEUE);
    const rows = await this.sql.all(
      `SELECT id, message_id, team_id, email, domain, state, attempts, next_attempt_at, last_reply, queued_at, held_at
       FROM recipients WHERE ${where} ORDER BY queued_at, id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(decodeQueued);
  }

  async summarize(selector: QueueSelector): Promise<DestinationSummary[]> {
    const [where, params] = whereOf(selector, IN_QUEUE);
    const rows = await this.sql.all(
      `SELECT domain, COUNT(*) AS total, SUM(state = 'queued') AS queued, SUM(state = 'sending') AS sending, SUM(state = 'deferred') AS deferred,
         SUM(state = 'held') AS held, MIN(queued_at) AS oldest
       FROM recipients WHERE ${where} GROUP BY domain ORDER BY COUNT(*) DESC, domain`,
      params,
    );
    // The newest reply of each destination's waiting recipients (a window function: PostgreSQL has the same).
    const errors = await this.sql.all(
      `SELECT domain, last_reply FROM (
         SELECT domain, last_reply, ROW_NUMBER() OVER (PARTITION BY domain ORDER BY updated_at DESC, id DESC) AS newest
         FROM recipients WHERE ${where} AND state IN ('deferred', 'held') AND last_reply IS NOT NULL AND last_reply <> ''
       ) WHERE newest = 1`,
      params,
    );
    const lastError = new Map(errors.map(decodeLastError).map((e) => [e.domain, e.last_reply]));
    return rows.map(decodeDestination).map((d) => ({ ...d, lastError: lastError.get(d.domain) ?? null }));
  }

  hold(selector: QueueSelector, now: number, audit: QueueAudit): Promise<ChangedRecipient[]> {
    const [where, params] = whereOf(selector, within('hold'));
    return this.audited(
      audit,
      async (q) => {
        const rows = await q.all(`UPDATE recipients SET state = 'held', held_at = ?, next_attempt_at = NULL, updated_at = ? WHERE ${where} RETURNING id, message_id`, [
          now,
          nowIso(),
          ...params,
        ]);
        return rows.map(decodeChanged);
      },
      howMany,
    );
  }

  release(selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]> {
    const [where, params] = whereOf(selector, within('release'));
    return this.audited(
      audit,
      async (q) => {
        // The time held is added to held_ms: the max queue age does not count it.
        const rows = await q.all(
          `UPDATE recipients SET state = CASE WHEN attempts = 0 THEN 'queued' ELSE 'deferred' END,
           held_ms = held_ms + CASE WHEN held_at IS NOT NULL AND held_at < ? THEN ? - held_at ELSE 0 END,
           held_at = NULL, next_attempt_at = ?, updated_at = ?
         WHERE ${where} RETURNING id, message_id, next_attempt_at AS due`,
          [now, now, now, nowIso(), ...params],
        );
        return rows.map(decodeDue);
      },
      howMany,
    );
  }

  flush(selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]> {
    const [where, params] = whereOf(selector, within('flush'));
    return this.audited(
      audit,
      async (q) => {
        const rows = await q.all(`UPDATE recipients SET next_attempt_at = ?, updated_at = ? WHERE ${where} RETURNING id, message_id, next_attempt_at AS due`, [
          now,
          nowIso(),
          ...params,
        ]);
        return rows.map(decodeDue);
      },
      howMany,
    );
  }

  purge(selector: QueueSelector, reason: string, notify: boolean, audit: QueueAudit): Promise<PurgeOutcome> {
    const [where, params] = whereOf(selector, within('purge'));
    return this.audited(
      audit,
      async (q) => {
        const at = nowIso();
        const purged = (
          await q.all(
            `UPDATE recipients SET state = 'failed', reason = ?, next_attempt_at = NULL, held_at = NULL, lease_until = NULL, updated_at = ?
             WHERE ${where} RETURNING id, message_id`,
            [reason, at, ...params],
          )
        ).map(decodeChanged);
        // Never handed to a remote server: their credits go back, as an expiry's do.
        await refundUnsent(q, countByMessage(purged), at);
        const bounces = notify ? await softBounces(q, purged, reason) : [];
        const statuses = await refreshStatuses(q, [...new Set(purged.map((p) => p.messageId))]);
        const finished = [...statuses].filter(([, status]) => status !== 'pending').map(([id]) => id);
        return { purged, finished, bounces };
      },
      (o) => o.purged.length,
    );
  }

  async requeue(selector: QueueSelector, now: number, audit: QueueAudit): Promise<RequeueOutcome> {
    const [where, params] = whereOf(selector, within('requeue'));
    return this.sql.tx(async (q) => {
      // Only messages whose body is kept: message_bodies holds the queue's messages and those kept for requeue.
      const chosen = (
        await q.all(`SELECT id, message_id, team_id, email FROM recipients WHERE ${where} AND message_id IN (SELECT message_id FROM message_bodies)`, params)
      ).map(decodeChosen);
      const suppressed = await suppressedOf(q, chosen);
      const sending = chosen.filter((r) => !suppressed.has(r.id));
      const at = nowIso();
      const paid = await payAgain(q, sending, at);
      if (!paid.ok) return { ok: false, reason: 'insufficient_credits', balance: paid.balance };
      const requeued = sending.length ? await moveToQueued(q, sending, now, at) : [];
      const messageIds = [...new Set(requeued.map((r) => r.messageId))];
      await refreshStatuses(q, messageIds);
      await unmarkKept(q, messageIds);
      await AuditLogStore.insert(q, audit(requeued.length));
      return { ok: true, requeued, suppressed: chosen.filter((r) => suppressed.has(r.id)).map(({ id, messageId, email }) => ({ id, messageId, email })) };
    });
  }

  async dropKeptBodies(finishedBefore: string, limit: number): Promise<number> {
    // A range read of message_bodies_kept (migration 29): only bodies kept for requeue, the oldest first.
    const res = await this.sql.run(
      'DELETE FROM message_bodies WHERE message_id IN (SELECT message_id FROM message_bodies WHERE kept_since < ? ORDER BY kept_since LIMIT ?)',
      [finishedBefore, limit],
    );
    return res.changes;
  }

  /** Runs a change and writes its audit entry, from how many recipients it changed, in the same transaction. */
  private audited<T>(audit: QueueAudit, change: (q: Queryable) => Promise<T>, count: (changed: T) => number): Promise<T> {
    return this.sql.tx(async (q) => {
      const changed = await change(q);
      await AuditLogStore.insert(q, audit(count(changed)));
      return changed;
    });
  }
}

interface Chosen {
  id: number;
  messageId: string;
  teamId: number;
  email: string;
}

const decodeChosen = rowDecoder('chosen recipient', Type.Object({ id: Int, message_id: Text, team_id: Int, email: Text }), (r): Chosen => ({
  id: r.id,
  messageId: r.message_id,
  teamId: r.team_id,
  email: r.email,
}));

/** The ids of the recipients whose address is on their team's suppression list (kept lower case). */
async function suppressedOf(q: Queryable, chosen: readonly Chosen[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (const [teamId, ofTeam] of groupBy(chosen, (r) => r.teamId)) {
    const listed = await SuppressionStore.listedAmong(
      q,
      teamId,
      ofTeam.map((r) => r.email.toLowerCase()),
    );
    for (const r of ofTeam) if (listed.has(r.email.toLowerCase())) out.add(r.id);
  }
  return out;
}

const decodePool = rowDecoder('send pool', Type.Object({ pool_id: Int }), (r) => r.pool_id);
const decodeBalance = rowDecoder('credit balance', Type.Object({ credit_balance: Int }), (r) => r.credit_balance);

/** Each message's requeued recipients paid for again, from the pool its send entry took from (none: it was free). */
async function payAgain(q: Queryable, sending: readonly Chosen[], at: string): Promise<{ ok: true } | { ok: false; balance: number }> {
  for (const [messageId, count] of countByMessage(sending)) {
    const pool = await q.get("SELECT pool_id FROM credit_entries WHERE kind = 'send' AND reference = ? LIMIT 1", [messageId]);
    if (!pool) continue;
    const poolId = decodePool(pool);
    if (!(await debitSends(q, poolId, [{ id: messageId, sendingKeyId: null, cost: count }], at))) {
      return { ok: false, balance: decodeBalance((await q.get('SELECT credit_balance FROM teams WHERE id = ?', [poolId]))!) };
    }
  }
  return { ok: true };
}

/** A new attempt: queued and due now, its age counted from now, its last reply kept for the log. */
async function moveToQueued(q: Queryable, sending: readonly Chosen[], now: number, at: string): Promise<DueAgain[]> {
  const moved: DueAgain[] = [];
  for (const chunk of chunksByParams(sending, 1)) {
    const rows = await q.all(
      `UPDATE recipients SET state = 'queued', reason = '', next_attempt_at = ?, queued_at = ?, held_ms = 0, held_at = NULL, hard_bounce = NULL,
         lease_until = NULL, updated_at = ?
       WHERE id IN (${chunk.map(() => '?').join(', ')}) AND state IN (${quoted(OPERATION_APPLIES_TO.requeue)}) RETURNING id, message_id, next_attempt_at AS due`,
      [now, now, at, ...chunk.map((r) => r.id)],
    );
    moved.push(...rows.map(decodeDue));
  }
  return moved;
}

/** Bodies no longer kept for requeue but for delivery: their messages are in the queue again (the only way back). */
async function unmarkKept(q: Queryable, messageIds: readonly string[]): Promise<void> {
  for (const chunk of chunksByParams(messageIds, 1)) {
    await q.run(`UPDATE message_bodies SET kept_since = NULL WHERE message_id IN (${chunk.map(() => '?').join(', ')})`, chunk);
  }
}

function countByMessage(recipients: ReadonlyArray<{ messageId: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of recipients) counts.set(r.messageId, (counts.get(r.messageId) ?? 0) + 1);
  return counts;
}

/** Each purged recipient reported as a soft bounce, as domain/outcome.ts decides a notified purge. */
async function softBounces(q: Queryable, purged: readonly ChangedRecipient[], reason: string): Promise<Array<{ input: BounceInput; applied: Applied }>> {
  // The state before the move was a waiting or held one: the effects are those of moving it to failed.
  const effects = effectsOf({ kind: 'purged', notify: true }, { state: 'held', complained: false });
  const bounces: Array<{ input: BounceInput; applied: Applied }> = [];
  if (!effects) return bounces;
  for (const r of purged) {
    const applied = await applyFeedbackAfterMove(q, r.id, effects.feedback, reason);
    if (applied) bounces.push({ input: { recipientId: r.id, hard: false, reason, source: 'purge' }, applied });
  }
  return bounces;
}
