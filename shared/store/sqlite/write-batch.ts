// Write batching on SQLite: a batch of items applied inside one grouped transaction (see shared/write-batcher.ts),
// and the split of multi-row statements under SQLite's limit of bound parameters.
import type { Queryable, Sql } from './sql.js';
import { Batcher } from '../../write-batcher.js';

export class WriteBatcher<I, O> extends Batcher<Queryable, I, O> {
  /** `apply` answers one output per item, in order; it runs within the writer's grouped transaction. */
  constructor(sql: Sql, apply: (q: Queryable, items: readonly I[]) => Promise<O[]>, maxItems = 200) {
    super((work) => sql.grouped(work), apply, maxItems);
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
