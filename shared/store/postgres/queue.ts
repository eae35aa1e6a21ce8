// The queue's rows on PostgreSQL: recipients claimed under a lease token, leases released (only by the token that
// holds them, in the statement), and what the Redis schedule is rebuilt from. Results are recorded through the unit
// of work (unit-of-work.ts), their effects decided by the queue module (queue/finish.ts), its only caller.
//
// Several MTAs claim at once: a claim locks the rows it takes with FOR UPDATE SKIP LOCKED, so two claims of the
// same ids never wait on each other and never both take a recipient (the one that finds it locked skips it; the
// lock holder's conditions are checked again on the row as committed). A taken-over lease gets a new token, and
// every later move of the old holder is refused by its own statement's condition on the token.
import { Type } from '@sinclair/typebox';
import type { PgSql } from './sql.js';
import { nowIso } from '../../time.js';
import { IN_FLIGHT, IN_QUEUE } from '../../domain/queue-state.js';
import type { DueRecipient, Lease, QueueRepository } from '../queue.js';
import { Int, Nullable, rowDecoder, Text } from './decode.js';

const decodeClaimed = rowDecoder(
  'claimed recipient',
  Type.Object({
    id: Int,
    message_id: Text,
    email: Text,
    domain: Text,
    attempts: Int,
    queued_at: Int,
    age_from: Int,
    team_id: Int,
    domain_id: Nullable(Text),
    envelope_from: Text,
  }),
  (r) => r,
);
const decodeDue = rowDecoder('due recipient', Type.Object({ id: Int, due: Int }), (r) => r);
const decodeId = rowDecoder('recipient id', Type.Object({ id: Int }), (r) => r.id);
const decodeStateCount = rowDecoder('state count', Type.Object({ state: Text, n: Int }), (r) => [r.state, r.n] as const);

/** Due now, or leased by a lease that ran out (taken over): what a claim may take. */
const CLAIMABLE = `((state IN ('queued', 'deferred') AND next_attempt_at <= $2) OR (state = 'sending' AND lease_until <= $2))`;

const CLAIM = `WITH taken AS MATERIALIZED (
    SELECT id FROM recipients WHERE id = ANY($1::bigint[]) AND ${CLAIMABLE} ORDER BY id FOR UPDATE SKIP LOCKED
  )
  UPDATE recipients r SET state = 'sending', lease_until = $3, lease_token = $4, updated_at = $5
  FROM taken, messages m
  WHERE r.id = taken.id AND m.id = r.message_id
  RETURNING r.id, r.message_id, r.email, r.domain, r.attempts, r.queued_at, r.queued_at + r.held_ms AS age_from, r.team_id, m.domain_id, m.envelope_from`;

export class PgQueueStore implements QueueRepository {
  constructor(private readonly sql: PgSql) {}

  /**
   * Leases due recipients for delivery under `token`: each moves to `sending` until `leaseUntil` unless another
   * lease on it is still running. A recipient whose lease ran out is taken over, and the new token fences out
   * the old holder.
   */
  async claim(ids: readonly number[], now: number, leaseUntil: number, token: string): Promise<DueRecipient[]> {
    if (!ids.length) return [];
    const rows = (await this.sql.all(CLAIM, [ids, now, leaseUntil, token, nowIso()])).map(decodeClaimed);
    return rows
      .sort((a, b) => a.id - b.id)
      .map((r) => ({
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
    const rows = await this.sql.all(
      `UPDATE recipients r SET state = 'deferred', lease_until = NULL, next_attempt_at = $1, updated_at = $2
       FROM unnest($3::bigint[], $4::text[]) AS v(id, token)
       WHERE r.id = v.id AND r.lease_token = v.token AND r.state = 'sending'
       RETURNING r.id`,
      [now, nowIso(), leases.map((l) => l.id), leases.map((l) => l.leaseToken)],
    );
    return rows.map(decodeId);
  }

  /** In-flight recipients whose due time passed `before` (lost from the Redis schedule, or a dead worker's lease). */
  async overdue(before: number, limit: number): Promise<Array<{ id: number; due: number }>> {
    const rows = await this.sql.all(
      `(SELECT id, next_attempt_at AS due FROM recipients WHERE state IN ('queued', 'deferred') AND next_attempt_at < $1
        UNION ALL SELECT id, lease_until AS due FROM recipients WHERE state = 'sending' AND lease_until < $1) LIMIT $2`,
      [before, limit],
    );
    return rows.map(decodeDue);
  }

  /** Every recipient still in flight and when it is due: what the Redis schedule is rebuilt from. */
  async inFlight(): Promise<Array<{ id: number; due: number }>> {
    const rows = await this.sql.all(
      `SELECT id, CASE WHEN state = 'sending' THEN COALESCE(lease_until, 0) ELSE COALESCE(next_attempt_at, 0) END AS due
       FROM recipients WHERE state IN ('queued', 'sending', 'deferred')`,
    );
    return rows.map(decodeDue);
  }

  async inFlightOf(ids: readonly number[]): Promise<Array<{ id: number; due: number }>> {
    if (!ids.length) return [];
    const rows = await this.sql.all(
      `SELECT id, CASE WHEN state = 'sending' THEN COALESCE(lease_until, 0) ELSE COALESCE(next_attempt_at, 0) END AS due
       FROM recipients WHERE id = ANY($1) AND state IN ('queued', 'sending', 'deferred') ORDER BY id`,
      [ids],
    );
    return rows.map(decodeDue);
  }

  /** The queue's depth by state (in flight, and held), every state listed; each part reads its own partial index. */
  async countInFlight(): Promise<Record<string, number>> {
    const rows = await this.sql.all(
      `SELECT state, COUNT(*) AS n FROM recipients WHERE state IN (${IN_FLIGHT.map((s) => `'${s}'`).join(', ')}) GROUP BY state
       UNION ALL SELECT 'held', COUNT(*) FROM recipients WHERE state = 'held'`,
    );
    return { ...Object.fromEntries(IN_QUEUE.map((s) => [s, 0])), ...Object.fromEntries(rows.map(decodeStateCount)) };
  }
}
