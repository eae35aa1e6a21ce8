// Point reads gathered into one statement: the lookups by key issued while the event loop handles one round of
// I/O (every request whose bytes arrived together) are answered by a single `WHERE key IN (…)` query. Under
// load the send path's per-request reads (the sender's team, the From domain, the recipients' suppressions)
// cost one statement per round instead of one per request; each statement crosses to SQLite's thread and
// back, which was most of a send's main-thread time. Nothing is cached: every read is issued after the call
// and sees every commit made before it, exactly as a lone read would.
import DataLoader from 'dataloader';

/** Most keys in one statement: SQLite allows 32,766 parameters; a short list keeps each statement cheap. */
const MAX_BATCH = 100;

/**
 * A loader of `V` by key `K`: `fetch` reads the rows of a set of distinct keys and returns them keyed; a key
 * without a row gives undefined. Keys are gathered until the I/O round ends (setImmediate), so a lone read
 * waits for nothing but the rest of its round.
 */
export function pointReads<K, V>(fetch: (keys: readonly K[]) => Promise<Map<K, V>>): (key: K) => Promise<V | undefined> {
  const loader = new DataLoader<K, V | undefined>(
    async (keys) => {
      const found = await fetch([...new Set(keys)]);
      return keys.map((key) => found.get(key));
    },
    { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (run) => setImmediate(run) },
  );
  return (key) => loader.load(key);
}

/** List lengths a statement is prepared for: a list is padded up to the next, so few statements are kept. */
const LENGTHS = [1, 2, 4, 8, 16, 32, 64, MAX_BATCH];

/**
 * The parameters of an `IN (…)` list of these keys, padded (by repeating the last) to one of a few lengths,
 * and its placeholders: a repeated key changes nothing in an IN list.
 */
export function inList<P>(keys: readonly P[]): { params: P[]; sql: string } {
  const length = LENGTHS.find((n) => n >= keys.length) ?? keys.length;
  const params = [...keys];
  while (params.length < length) params.push(keys[keys.length - 1]!);
  return { params, sql: `(${params.map(() => '?').join(', ')})` };
}
