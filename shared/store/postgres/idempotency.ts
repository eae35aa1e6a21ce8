// Idempotency replies on PostgreSQL (idempotency_replies, one row per team and key), as on SQLite: a reservation
// is one INSERT … ON CONFLICT DO UPDATE … WHERE expired RETURNING. Under READ COMMITTED the statement decides:
// of two inserts of a new key the second waits for the first's commit and then finds the row; of two takeovers
// of an expired row the second waits for the first's row lock and re-reads the row, no longer expired. The
// holder is read in a statement of its own; when it was gone by then (released, or expired), the reservation
// is tried again. Completion and release are fenced on the token and on the row being still in progress.
import type { PgSql } from './sql.js';
import { decodeHeld } from '../idempotency-row.js';
import type { HeldKey, IdempotencyRepository, KeyReservation, NewReservation, StoredReply } from '../idempotency.js';

const RESERVE = `INSERT INTO idempotency_replies (team_id, idempotency_key, request_hash, token, reply_status, reply_body, expires_at)
  VALUES ($1, $2, $3, $4, NULL, NULL, $5)
  ON CONFLICT (team_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, token = excluded.token,
    reply_status = NULL, reply_body = NULL, expires_at = excluded.expires_at
  WHERE idempotency_replies.expires_at <= $6
  RETURNING token`;

/** How many times a reservation tries again when the holder it lost to was gone by the time it read it. */
const RESERVE_ATTEMPTS = 3;

const HOLDER = 'SELECT request_hash, reply_status, reply_body FROM idempotency_replies WHERE team_id = $1 AND idempotency_key = $2 AND expires_at > $3';

export class PgIdempotencyStore implements IdempotencyRepository {
  constructor(private readonly sql: PgSql) {}

  async reserve(r: NewReservation): Promise<KeyReservation> {
    for (let attempt = 1; ; attempt++) {
      if (await this.sql.get(RESERVE, [r.teamId, r.key, r.requestHash, r.token, r.holdUntil, r.at])) return { state: 'reserved' };
      const holder = await this.sql.get(HOLDER, [r.teamId, r.key, r.at]);
      if (holder) return decodeHeld(holder);
      // The key changes hands again and again between our two statements: say it is busy, which sends nothing
      // twice; the client retries.
      if (attempt >= RESERVE_ATTEMPTS) return { state: 'in_progress', requestHash: r.requestHash };
    }
  }

  async complete(held: HeldKey, reply: StoredReply, _at: string, expiresAt: string): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE idempotency_replies SET reply_status = $1, reply_body = $2, expires_at = $3
       WHERE team_id = $4 AND idempotency_key = $5 AND token = $6 AND reply_status IS NULL`,
      [reply.status, JSON.stringify(reply.body ?? null), expiresAt, held.teamId, held.key, held.token],
    );
    return done.changes === 1;
  }

  async release(held: HeldKey): Promise<boolean> {
    const done = await this.sql.run('DELETE FROM idempotency_replies WHERE team_id = $1 AND idempotency_key = $2 AND token = $3 AND reply_status IS NULL', [
      held.teamId,
      held.key,
      held.token,
    ]);
    return done.changes === 1;
  }

  /** The outer `expires_at <= $1` is checked again on a row taken over meanwhile (its lock awaited): it stays. */
  async sweep(at: string, limit: number): Promise<number> {
    const done = await this.sql.run(
      `DELETE FROM idempotency_replies WHERE expires_at <= $1 AND (team_id, idempotency_key) IN
         (SELECT team_id, idempotency_key FROM idempotency_replies WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [at, limit],
    );
    return done.changes;
  }
}
