// The idempotency repository: the replies of sends made with an Idempotency-Key, per team and key. A key is
// reserved by the request that uses it first (decided in the write: of two reservations at once, one wins),
// then completed with that request's reply or released when it failed. A reservation and a reply both end at
// an expiry; an expired one is as good as none and is taken over by the next reservation. Which replies are
// kept, and for how long, is the core's rule (core/sending/idempotency.ts); this only keeps them.
//
// Two implementations: Redis (core/sending/redis-idempotency.ts, the default beside SQLite) and the database
// (both engines), so that replies survive a Redis failover when several machines share PostgreSQL.

/** The first reply to a request made with an Idempotency-Key, as its interface answered it. */
export interface StoredReply {
  status: number;
  body: unknown;
}

/** One team's key, held by the reservation that `token` names. */
export interface HeldKey {
  teamId: number;
  key: string;
  /** Chosen by the reserving request; the completion and release are fenced on it. */
  token: string;
}

export interface NewReservation extends HeldKey {
  /** What identifies the request's content (a hash of its body): a repeat with another content is refused. */
  requestHash: string;
  /** ISO 8601 UTC: now, which decides whether a reservation or reply found is expired. */
  at: string;
  /** ISO 8601 UTC: when this reservation lapses if it is neither completed nor released. */
  holdUntil: string;
}

/** What a reservation found: the key for this request, or the live reservation or reply of an earlier one. */
export type KeyReservation = { state: 'reserved' } | { state: 'in_progress'; requestHash: string } | { state: 'completed'; requestHash: string; reply: StoredReply };

export interface IdempotencyRepository {
  /**
   * Reserves the team's key for this request when no live reservation or reply holds it (none, or only an
   * expired one, which is replaced); otherwise says what holds it. Of reservations made at the same moment on
   * any number of processes, exactly one is 'reserved'.
   */
  reserve(r: NewReservation): Promise<KeyReservation>;
  /**
   * Keeps `reply` for the key until `expiresAt` (ISO), if `held` still holds it, in progress; false (nothing
   * changes) when the reservation lapsed and another took the key over, or was completed or released.
   */
  complete(held: HeldKey, reply: StoredReply, at: string, expiresAt: string): Promise<boolean>;
  /** Frees the key for a retry, if `held` still holds it in progress; false otherwise (nothing changes). */
  release(held: HeldKey): Promise<boolean>;
  /** Removes at most `limit` reservations and replies expired at `at` (ISO); how many it removed. */
  sweep(at: string, limit: number): Promise<number>;
}
