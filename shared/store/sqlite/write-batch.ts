// The split of multi-row statements under SQLite's limit of bound parameters.

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
