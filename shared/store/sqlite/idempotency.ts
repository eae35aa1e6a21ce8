// Idempotency replies in SQLite (idempotency_replies, one row per team and key). A reservation is one
// INSERT … ON CONFLICT DO UPDATE … WHERE expired RETURNING: a new key is inserted, an expired row is taken
// over, a live one is left alone, so the write itself decides who holds the key. Completion and release are
// fenced on the reservation's token and on the row being still in progress.
import type { Sql } from './sql.js';
import { decodeHeld } from '../idempotency-row.js';
import type { HeldKey, IdempotencyRepository, KeyReservation, NewReservation, StoredReply } from '../idempotency.js';

const RESERVE = `INSERT INTO idempotency_replies (team_id, idempotency_key, request_hash, token, reply_status, reply_body, expires_at)
  VALUES (?, ?, ?, ?, NULL, NULL, ?)
  ON CONFLICT (team_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, token = excluded.token,
    reply_status = NULL, reply_body = NULL, expires_at = excluded.expires_at
  WHERE idempotency_replies.expires_at <= ?
  RETURNING token`;

const HOLDER = 'SELECT request_hash, reply_status, reply_body FROM idempotency_replies WHERE team_id = ? AND idempotency_key = ? AND expires_at > ?';

export class IdempotencyStore implements IdempotencyRepository {
  constructor(private readonly sql: Sql) {}

  async reserve(r: NewReservation): Promise<KeyReservation> {
    // Grouped with the other writes of the moment (one commit). The holder is read in the same transaction, so
    // it is the live row that refused the reservation: SQLite's one writer lets nothing change in between.
    return this.sql.grouped(async (q) => {
      if (await q.get(RESERVE, [r.teamId, r.key, r.requestHash, r.token, r.holdUntil, r.at])) return { state: 'reserved' } as const;
      const holder = await q.get(HOLDER, [r.teamId, r.key, r.at]);
      if (!holder) throw new Error(`idempotency key of team ${r.teamId} refused a reservation but has no live holder`);
      return decodeHeld(holder);
    });
  }

  async complete(held: HeldKey, reply: StoredReply, _at: string, expiresAt: string): Promise<boolean> {
    const done = await this.sql.grouped((q) =>
      q.run(
        `UPDATE idempotency_replies SET reply_status = ?, reply_body = ?, expires_at = ?
         WHERE team_id = ? AND idempotency_key = ? AND token = ? AND reply_status IS NULL`,
        [reply.status, JSON.stringify(reply.body ?? null), expiresAt, held.teamId, held.key, held.token],
      ),
    );
    return done.changes === 1;
  }

  async release(held: HeldKey): Promise<boolean> {
    const done = await this.sql.grouped((q) =>
      q.run('DELETE FROM idempotency_replies WHERE team_id = ? AND idempotency_key = ? AND token = ? AND reply_status IS NULL', [held.teamId, held.key, held.token]),
    );
    return done.changes === 1;
  }

  async sweep(at: string, limit: number): Promise<number> {
    const done = await this.sql.run(
      `DELETE FROM idempotency_replies WHERE expires_at <= ? AND (team_id, idempotency_key) IN
         (SELECT team_id, idempotency_key FROM idempotency_replies WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
      [at, at, limit],
    );
    return done.changes;
  }
}
