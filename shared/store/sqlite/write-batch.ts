// Write batching: items submitted while the writer is busy are applied together, as one batch inside one
// grouped transaction, so a burst of submissions costs the writer a few multi-row statements instead of
// several round trips each (each round trip waits for the event loop, which under load is what limits).
import type { Queryable, Sql } from './sql.js';

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class WriteBatcher<I, O> {
  private readonly pending: Array<Pending<I, O>> = [];

  /** `apply` answers one output per item, in order; it runs within the writer's transaction. */
  constructor(
    private readonly sql: Sql,
    private readonly apply: (q: Queryable, items: readonly I[]) => Promise<O[]>,
    private readonly maxItems = 200,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1) this.flush();
    });
  }

  /** The batch is taken when the writer gets to it, not when it was asked for: whatever came meanwhile joins. */
  private flush(): void {
    let batch: Array<Pending<I, O>> = [];
    this.sql
      .grouped((q) => {
        batch = this.pending.splice(0, this.maxItems);
        if (this.pending.length) this.flush();
        return this.apply(
          q,
          batch.map((p) => p.item),
        );
      })
      .then(
        (outputs) => batch.forEach((p, i) => p.resolve(outputs[i]!)),
        (error: unknown) => {
          // The transaction failed before this batch was taken (BEGIN found the database locked for too
          // long): the items waiting for it fail with it, and any beyond a batch get their own attempt.
          if (!batch.length) return this.failWaiting(error);
          // One bad item must not fail the others: a failed batch is tried again one item at a time.
          if (batch.length === 1) batch[0]!.reject(error);
          else for (const p of batch) this.applyAlone(p);
        },
      );
  }

  private failWaiting(error: unknown): void {
    for (const p of this.pending.splice(0, this.maxItems)) p.reject(error);
    if (this.pending.length) this.flush();
  }

  private applyAlone(p: Pending<I, O>): void {
    this.sql.grouped((q) => this.apply(q, [p.item])).then((outputs) => p.resolve(outputs[0]!), p.reject);
  }
}

/**
 * Splits rows of `paramsPerRow` values each so that no statement binds more than `maxParams` (SQLite's limit
 * is 32,766); a row above the limit still gets a statement of its own.
 */
export function chunksByParams<T>(rows: readonly T[], paramsPerRow: number, maxParams = 10_000): T[][] {
  const size = Math.max(1, Math.floor(maxParams / paramsPerRow));
  const chunks: T[][] = [];
  for (let at = 0; at < rows.length; at += size) chunks.push(rows.slice(at, at + size));
  return chunks;
}
