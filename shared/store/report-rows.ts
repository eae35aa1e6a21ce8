// The inbound report rows both engines read alike: the body column (a BLOB / BYTEA, a Buffer from either
// driver) and the order a claim gives its reports in (an UPDATE … RETURNING returns rows in no set order).

/** A row's body: a Buffer, or null when the row has none; anything else is a schema fault, refused loudly. */
export function bodyOf(row: Record<string, unknown>): Buffer | null {
  const body = row.body;
  if (body === null || body === undefined) return null;
  if (!Buffer.isBuffer(body)) throw new Error('inbound report: the body column did not decode as bytes');
  return body;
}

/** Claimed rows oldest first, as the waiting reports are listed: by arrival, then by id. */
export function oldestFirst<R extends Record<string, unknown>>(rows: readonly R[]): R[] {
  const key = (r: R): string => `${String(r.received_at)} ${String(r.id)}`;
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
