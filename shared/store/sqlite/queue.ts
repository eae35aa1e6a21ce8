// The queue's rows: recipients claimed under a lease token, leases released (only by the token that holds
// them, in the statement), and what the Redis schedule is rebuilt from. Results are recorded through the unit
// of work (unit-of-work.ts), their effects decided by the queue module (queue/finish.ts), its only caller.
import type { Sql } from './sql.js';
import { nowIso } from '../../time.js';
import { IN_FLIGHT, IN_QUEUE } from '../../domain/queue-state.js';
import type { DueRecipient, Lease, QueueRepository } from '../queue.js';
import { chunksByParams } from './write-batch.js';

export class QueueStore implements QueueRepository {
  constructor(private readonly sql: Sql) {}

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

  async inFlightOf(ids: readonly number[]): Promise<Array<{ id: number; due: number }>> {
    if (!ids.length) return [];
    return this.sql.all<{ id: number; due: number }>(
      `SELECT id, CASE WHEN state = 'sending' THEN COALESCE(lease_until, 0) ELSE COALESCE(next_attempt_at, 0) END AS due
       FROM recipients WHERE id IN (${ids.map(() => '?').join(',')}) AND state IN ('queued', 'sending', 'deferred') ORDER BY id`,
      [...ids],
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
