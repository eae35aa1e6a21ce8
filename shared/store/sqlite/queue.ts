// The queue's rows: recipients claimed under a lease token, attempt results recorded only for the token that
// holds the lease (fencing), leases released, and what the Redis schedule is rebuilt from. The queue module
// (queue/queue.ts) is the only caller; every recipient move goes through canMove and re-derives the
// message's status in the same transaction.
import { refundUnsent } from './credits.js';
import type { Queryable, Sql } from './sql.js';
import { nowIso } from '../../time.js';
import { canMove, IN_FLIGHT, IN_QUEUE, type MessageStatus, type RecipientState } from '../../domain/queue-state.js';
import { refreshStatuses } from './message-status.js';
import { applyFeedbackAfterMove } from './feedback-apply.js';
import { effectsOf, outcomeOfAttempt, type DomainCounter, type OutcomeEffects } from '../../domain/outcome.js';
import type { Applied, BounceInput } from '../feedback.js';
import type { AttemptResult, DueRecipient, FinishOutcome, Lease, QueueRepository, StaleResult } from '../queue.js';
import { chunksByParams, WriteBatcher } from './write-batch.js';

export class QueueStore implements QueueRepository {
  private readonly results: WriteBatcher<readonly AttemptResult[], FinishOutcome>;

  constructor(private readonly sql: Sql) {
    this.results = new WriteBatcher(sql, finishBatches);
  }

  /**
   * Leases due recipients for delivery under `token`: each moves to `sending` until `leaseUntil` unless another
   * lease on it is still running. A recipient whose lease ran out is taken over, and the new token fences out
   * the old holder.
   */
  async claim(ids: readonly number[], now: number, leaseUntil: number, token: string): Promise<DueRecipient[]> {
    if (!ids.length) return [];
    const marks = ids.map(() => '?').join(',');
    // One statement that moves and returns the rows; it shares the group's commit with concurrent intake.
    const rows = await this.sql.grouped((q) =>
      q.all<{
        id: number;
        message_id: string;
        email: string;
        domain: string;
        attempts: number;
        queued_at: number;
        age_from: number;
        team_id: number;
        domain_id: string | null;
        envelope_from: string;
      }>(
        `UPDATE recipients SET state = 'sending', lease_until = ?, lease_token = ?, updated_at = ?
         WHERE id IN (${marks}) AND ((state IN ('queued', 'deferred') AND next_attempt_at <= ?) OR (state = 'sending' AND lease_until <= ?))
         RETURNING id, message_id, email, domain, attempts, queued_at, queued_at + held_ms AS age_from,
           team_id,
           (SELECT domain_id FROM messages WHERE id = message_id) AS domain_id,
           (SELECT envelope_from FROM messages WHERE id = message_id) AS envelope_from`,
        [leaseUntil, token, nowIso(), ...ids, now, now],
      ),
    );
    return rows.map((r) => ({
      id: r.id,
      messageId: r.message_id,
      teamId: r.team_id,
      domainId: r.domain_id,
      envelopeFrom: r.envelope_from,
      email: r.email,
      domain: r.domain,
      attempts: r.attempts,
      queuedAt: r.queued_at,
      ageFrom: r.age_from,
      leaseToken: token,
    }));
  }

  /**
   * Applies the results of delivery attempts in one transaction: each recipient whose lease the result's token
   * still holds moves, the attempt is kept, a bounce or an expiry takes its effects (suppression, event) at
   * once, and message statuses follow. A result whose token no longer holds the lease writes nothing and
   * comes back in `refused`. Deliveries finishing together are recorded together, in a handful of statements.
   */
  finish(results: readonly AttemptResult[]): Promise<FinishOutcome> {
    if (!results.length) return Promise.resolve({ finished: [], bounces: [], refused: [] });
    return this.results.submit(results);
  }

  /** Returns leased recipients to the queue (graceful stop), due at `now`; a lease no longer held is left alone. Answers the ids released. */
  async release(leases: readonly Lease[], now: number): Promise<number[]> {
    if (!leases.length) return [];
    return this.sql.grouped(async (q) => {
      const released: number[] = [];
      for (const chunk of chunksByParams(leases, 2)) {
        const rows = await q.all<{ id: number }>(
          `UPDATE recipients SET state = 'deferred', lease_until = NULL, next_attempt_at = ?, updated_at = ?
           FROM (VALUES ${chunk.map(() => '(?, ?)').join(', ')}) AS v
           WHERE recipients.id = v.column1 AND recipients.lease_token = v.column2 AND recipients.state = 'sending'
           RETURNING recipients.id`,
          [now, nowIso(), ...chunk.flatMap((l) => [l.id, l.leaseToken])],
        );
        released.push(...rows.map((r) => r.id));
      }
      return released;
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

  /** Every recipient still in flight and when it is due: what the Redis schedule is rebuilt from. */
  async inFlight(): Promise<Array<{ id: number; due: number }>> {
    return this.sql.all<{ id: number; due: number }>(
      `SELECT id, CASE WHEN state = 'sending' THEN COALESCE(lease_until, 0) ELSE COALESCE(next_attempt_at, 0) END AS due
       FROM recipients WHERE state IN ('queued', 'sending', 'deferred')`,
    );
  }

  /**
   * The queue's depth: recipients in the queue, by state (in flight, and held), every one of them listed (0 when
   * none). Each part reads its own partial index (recipients_in_flight, recipients_held), so it costs the size
   * of the queue, not of the log's history (it is read on every metrics scrape).
   */
  async countInFlight(): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ state: string; n: number }>(
      `SELECT state, COUNT(*) AS n FROM recipients WHERE state IN (${IN_FLIGHT.map((s) => `'${s}'`).join(', ')}) GROUP BY state
       UNION ALL SELECT 'held', COUNT(*) FROM recipients WHERE state = 'held'`,
    );
    return { ...Object.fromEntries(IN_QUEUE.map((s) => [s, 0])), ...Object.fromEntries(rows.map((r) => [r.state, r.n])) };
  }
}

interface Move {
  result: AttemptResult;
  messageId: string;
  domainId: string | null;
  /** What this result does, as domain/outcome.ts decides it. */
  effects: OutcomeEffects;
}

interface Current {
  state: RecipientState;
  token: string | null;
  messageId: string;
  domainId: string | null;
}

/**
 * Sorts results into the moves that may be made and the refused ones. A result moves its recipient only while
 * the recipient is `sending` under the result's own lease token (and canMove allows the move); each lease
 * moves once, so a second result for it in the same batch is refused too. The check reads the rows inside the
 * writing transaction, so no other writer can take the lease between it and the move.
 */
async function fence(q: Queryable, results: readonly AttemptResult[]): Promise<{ moves: Move[]; refused: StaleResult[] }> {
  const rows = await q.all<{ id: number; state: RecipientState; lease_token: string | null; message_id: string; domain_id: string | null }>(
    `SELECT r.id, r.state, r.lease_token, r.message_id, m.domain_id FROM recipients r JOIN messages m ON m.id = r.message_id
     WHERE r.id IN (${results.map(() => '?').join(',')})`,
    results.map((r) => r.recipientId),
  );
  const current = new Map<number, Current>(rows.map((r) => [r.id, { state: r.state, token: r.lease_token, messageId: r.message_id, domainId: r.domain_id }]));
  const moves: Move[] = [];
  const refused: StaleResult[] = [];
  for (const result of results) {
    const now = current.get(result.recipientId);
    const holds = now !== undefined && now.state === 'sending' && now.token === result.leaseToken;
    const effects = holds ? effectsOf(outcomeOfAttempt(result.to, result.hard), { state: now.state, complained: false }) : null;
    if (now && effects && effects.moveTo === result.to && canMove(now.state, result.to)) {
      moves.push({ result, messageId: now.messageId, domainId: now.domainId, effects });
      now.state = result.to; // this lease has moved: a repeat of it is refused
    } else {
      refused.push({ result, currentToken: now?.token ?? null, currentState: now?.state ?? null });
    }
  }
  return { moves, refused };
}

async function moveRecipients(q: Queryable, moves: readonly Move[], now: string): Promise<void> {
  for (const chunk of chunksByParams(moves, 5)) {
    const values = chunk.map(({ result }) => [
      result.recipientId,
      result.to,
      result.reply,
      result.to === 'deferred' ? (result.nextAttemptAt ?? Date.now()) : null,
      result.to === 'sent' ? '' : result.reply,
    ]);
    // The lease token stays on the row: it names the last holder in the log of a refused late result.
    await q.run(
      `UPDATE recipients SET state = v.column2, attempts = attempts + 1, last_reply = v.column3, lease_until = NULL,
         next_attempt_at = v.column4, reason = v.column5, updated_at = ?
       FROM (VALUES ${values.map(() => '(?, ?, ?, ?, ?)').join(', ')}) AS v WHERE recipients.id = v.column1`,
      [now, ...values.flat()],
    );
  }
}

async function insertAttempts(q: Queryable, moves: readonly Move[], now: string): Promise<void> {
  for (const chunk of chunksByParams(moves, 6)) {
    await q.run(
      `INSERT INTO attempts (recipient_id, at, mx_host, ip, outcome, reply) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flatMap(({ result }) => [result.recipientId, now, result.mxHost, result.ip, result.to === 'sent' ? 'delivered' : result.to, result.reply]),
    );
  }
}

const COUNTER_COLUMNS: Readonly<Record<DomainCounter, string>> = { sent: 'total_sent', bounced: 'total_bounced', complained: 'total_complained' };

/** The domains' counters follow their recipients' outcomes, one statement per domain and counter. */
async function countFinalOutcomes(q: Queryable, moves: readonly Move[]): Promise<void> {
  const counts = new Map<string, number>();
  for (const { effects, domainId } of moves) {
    if (domainId === null || effects.count === null) continue;
    const key = `${COUNTER_COLUMNS[effects.count]} ${domainId}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of counts) {
    const [column, domainId] = key.split(' ') as [string, string];
    await q.run(`UPDATE domains SET ${column} = ${column} + ? WHERE id = ?`, [n, domainId]);
  }
}

/** Recipients that end failed were never handed to a remote server (they expired, or Tern ended them): by message. */
function unsentByMessage(moves: readonly Move[]): Map<string, number> {
  const unsent = new Map<string, number>();
  for (const { result, messageId } of moves) if (result.to === 'failed') unsent.set(messageId, (unsent.get(messageId) ?? 0) + 1);
  return unsent;
}

/** Several callers' results recorded at once; each caller hears of its own bounces, refusals and finished messages. */
async function finishBatches(q: Queryable, batches: ReadonlyArray<readonly AttemptResult[]>): Promise<FinishOutcome[]> {
  const { moves, refused } = await fence(q, batches.flat());
  const now = nowIso();
  await moveRecipients(q, moves, now);
  await insertAttempts(q, moves, now);
  await countFinalOutcomes(q, moves);
  await refundUnsent(q, unsentByMessage(moves), now);
  const bounces: Array<{ input: BounceInput; applied: Applied }> = [];
  for (const { result, effects } of moves.filter((m) => m.effects.feedback.event !== null)) {
    const applied = await applyFeedbackAfterMove(q, result.recipientId, effects.feedback, result.reply);
    const input: BounceInput = {
      recipientId: result.recipientId,
      hard: effects.feedback.hardBounce ?? false,
      reason: result.reply,
      source: result.to === 'failed' ? 'expiry' : 'smtp',
    };
    if (applied) bounces.push({ input, applied });
  }
  const statuses = await refreshStatuses(q, [...new Set(moves.map((m) => m.messageId))]);
  return splitByCaller(batches, { moves, refused, statuses, bounces });
}

interface BatchOutcome {
  moves: readonly Move[];
  refused: readonly StaleResult[];
  statuses: ReadonlyMap<string, MessageStatus>;
  bounces: ReadonlyArray<{ input: BounceInput; applied: Applied }>;
}

function splitByCaller(batches: ReadonlyArray<readonly AttemptResult[]>, o: BatchOutcome): FinishOutcome[] {
  const callerOf = new Map<AttemptResult, number>();
  batches.forEach((results, i) => results.forEach((r) => callerOf.set(r, i)));
  const outcomes: FinishOutcome[] = batches.map(() => ({ finished: [], bounces: [], refused: [] }));
  const moveOf = new Map<number, Move>(o.moves.map((m) => [m.result.recipientId, m]));
  // A finished message is told to one caller only, the first that moved one of its recipients.
  const told = new Set<string>();
  for (const move of o.moves) {
    if (told.has(move.messageId) || o.statuses.get(move.messageId) === 'pending') continue;
    told.add(move.messageId);
    outcomes[callerOf.get(move.result)!]!.finished.push(move.messageId);
  }
  for (const b of o.bounces) outcomes[callerOf.get(moveOf.get(b.input.recipientId)!.result)!]!.bounces.push(b);
  for (const r of o.refused) outcomes[callerOf.get(r.result)!]!.refused.push(r);
  return outcomes;
}
