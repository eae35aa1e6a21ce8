// `ternmail store copy`: a stopped SQLite installation copied into an empty PostgreSQL database, table by table.
// Both engines hold the same tables and columns at the same schema version (test/store/postgres-engine.test.ts),
// so the copy is generic: the PostgreSQL side says which tables and columns it has, in foreign-key order, and the
// SQLite side reads those columns page by page (store/sqlite/copy-source.ts), giving the two columns PostgreSQL
// keeps where SQLite has none (messages.rowid, SQLite's implicit rowid; messages.search_recipients, the words
// SQLite's FTS5 index was fed) as SQLite defines them. Everything is written in one PostgreSQL transaction
// (store/postgres/bulk-load.ts), checked (row counts, and the figures kept on write row by row) before it
// commits: a copy that differs is rolled back and the differences are the outcome.
import { openCopySource } from './sqlite/copy-source.js';
import { LATEST_SCHEMA_VERSION } from './sqlite/migrations.js';
import { inspectTarget, loadInto, migrateTarget, TargetFilledMeanwhile } from './postgres/bulk-load.js';

/** The installation being copied, held so that nothing else writes it meanwhile. */
export interface CopySource {
  readonly schemaVersion: number;
  /** The tables holding Tern's rows (not the schema's record, which the target's migration writes; not a search index's). */
  tables(): readonly string[];
  /** Whether the source can give this column: its own, or one it computes for the target (messages.rowid, …). */
  gives(table: string, column: string): boolean;
  count(table: string): Promise<number>;
  /** Every row, as the values of `columns` in that order, a page at a time (bounded in rows and in bytes). */
  pages(table: string, columns: readonly string[]): AsyncIterable<unknown[][]>;
  /** Every row at once: for the figure tables, which are small. */
  rows(table: string, columns: readonly string[]): Promise<unknown[][]>;
  /** `by`'s values and the sum of `sum` per group of rows equal in `by`: for a figure table kept per message. */
  sums(table: string, by: readonly string[], sum: string): Promise<unknown[][]>;
  close(): Promise<void>;
}

export interface TargetColumn {
  name: string;
}

export interface TargetTable {
  name: string;
  /** The columns the copy writes (not those the target computes itself), in the target's order. */
  columns: readonly TargetColumn[];
}

/** The target inside the copy's one transaction. */
export interface BulkLoad {
  /** The target's tables, parents before the tables that reference them. */
  tables(): readonly TargetTable[];
  /** Writes one page of rows, each the values of `table.columns` in that order, ids kept. */
  insert(table: TargetTable, rows: readonly unknown[][]): Promise<void>;
  /** Moves every id generator past the greatest id copied, so that the next row written gets a new one. */
  restartIdentities(tables: readonly TargetTable[]): Promise<void>;
  count(table: string): Promise<number>;
  rows(table: string, columns: readonly string[]): Promise<unknown[][]>;
  sums(table: string, by: readonly string[], sum: string): Promise<unknown[][]>;
}

export type CopyRefusal =
  /** No database in the data directory (a wrong TERNMAIL_DATA_DIR, most likely). */
  | { kind: 'no_database'; dataDir: string }
  /** Another process has the database open: a running Tern (or a command beside it). */
  | { kind: 'in_use'; file: string }
  /** The installation's schema is not this release's: start this release once on SQLite, which migrates it. */
  | { kind: 'source_version'; found: number; expected: number }
  /** The target database cannot be reached, or is not a server Tern runs on (too old); the driver's words. */
  | { kind: 'target_unreachable'; reason: string }
  /** The target holds Tern's schema at another version. */
  | { kind: 'target_version'; found: number; expected: number }
  /** The target holds rows in these tables: a copy goes only into an empty database. */
  | { kind: 'target_not_empty'; tables: string[] }
  /** The copy was written but did not check out; it was rolled back. */
  | { kind: 'copy_differs'; differences: string[] };

export interface TableCopied {
  table: string;
  /** Rows in the SQLite table. */
  source: number;
  /** Rows in the PostgreSQL table after the copy, counted in the copy's transaction. */
  target: number;
}

export interface StoreCopied {
  schemaVersion: number;
  tables: TableCopied[];
  /** The tables of figures kept on write whose every row was compared and found equal. */
  figuresChecked: string[];
}

export type CopyOutcome = { ok: true; value: StoreCopied } | { ok: false; refusal: CopyRefusal };

const refused = (refusal: CopyRefusal): CopyOutcome => ({ ok: false, refusal });

/** A figure table compared row by row, or (kept per message, so as long as the log) by its sums per group. */
export type Figure = { table: string; columns: readonly string[] } | { table: string; by: readonly string[]; sum: string };

/**
 * The figures kept on write (counters, balances, totals), compared on both sides after the copy: a figure copied
 * wrong would go on being moved from a wrong start, and nothing would ever say so. A table named here that either
 * side lacks fails the copy (the schema changed: this list must follow it).
 */
export const FIGURES: readonly Figure[] = [
  { table: 'credit_totals', columns: ['kind', 'total', 'entries'] },
  { table: 'message_counts', columns: ['team_id', 'day', 'status', 'domain_key', 'n'] },
  { table: 'platform_message_counts', columns: ['day', 'status', 'n'] },
  { table: 'recipient_counts', columns: ['team_id', 'day', 'status', 'domain_key', 'n'] },
  { table: 'recipient_counts_hourly', columns: ['team_id', 'hour', 'status', 'domain_key', 'n'] },
  { table: 'platform_recipient_counts', columns: ['day', 'status', 'n'] },
  // A row per message and status: summed per team and status rather than held in memory whole.
  { table: 'message_statuses', by: ['team_id', 'status'], sum: 'n' },
  { table: 'queue_depths', columns: ['team_id', 'n'] },
  { table: 'teams', columns: ['id', 'credit_balance'] },
  { table: 'domains', columns: ['id', 'total_sent', 'total_bounced', 'total_complained'] },
];

/** The two sides' tables and columns: what the target has that the source cannot give is a schema mismatch (a bug). */
function shapeProblems(source: CopySource, tables: readonly TargetTable[]): string[] {
  const problems: string[] = [];
  const targetNames = new Set(tables.map((t) => t.name));
  for (const name of source.tables()) if (!targetNames.has(name)) problems.push(`the source's table ${name} is not in the target`);
  for (const table of tables) {
    if (!source.tables().includes(table.name)) {
      problems.push(`the target's table ${table.name} is not in the source`);
      continue;
    }
    for (const column of table.columns) if (!source.gives(table.name, column.name)) problems.push(`the source gives no ${table.name}.${column.name}`);
  }
  return problems;
}

/** Row order does not matter; every row of a figure table must be on both sides, as many times. */
function figureDifferences(table: string, sourceRows: readonly unknown[][], targetRows: readonly unknown[][]): string[] {
  const key = (row: readonly unknown[]) => JSON.stringify(row);
  const tally = new Map<string, number>();
  for (const row of sourceRows) tally.set(key(row), (tally.get(key(row)) ?? 0) + 1);
  for (const row of targetRows) tally.set(key(row), (tally.get(key(row)) ?? 0) - 1);
  const out: string[] = [];
  for (const [row, n] of tally) if (n !== 0) out.push(`${table}: ${row} ${n > 0 ? 'only in SQLite' : 'only in PostgreSQL'}`);
  return out.slice(0, 10);
}

async function copyTables(source: CopySource, load: BulkLoad, tables: readonly TargetTable[]): Promise<TableCopied[]> {
  const copied: TableCopied[] = [];
  for (const table of tables) {
    const columns = table.columns.map((c) => c.name);
    for await (const page of source.pages(table.name, columns)) await load.insert(table, page);
    copied.push({ table: table.name, source: await source.count(table.name), target: await load.count(table.name) });
  }
  await load.restartIdentities(tables);
  return copied;
}

async function checkFigures(source: CopySource, load: BulkLoad): Promise<string[]> {
  const differences: string[] = [];
  for (const figure of FIGURES) {
    const [sourceRows, targetRows] =
      'sum' in figure
        ? [await source.sums(figure.table, figure.by, figure.sum), await load.sums(figure.table, figure.by, figure.sum)]
        : [await source.rows(figure.table, figure.columns), await load.rows(figure.table, figure.columns)];
    differences.push(...figureDifferences(figure.table, sourceRows, targetRows));
  }
  return differences;
}

/** Thrown inside the copy's transaction to roll it back; becomes the 'copy_differs' outcome. */
class CopyDiffers extends Error {
  constructor(readonly differences: string[]) {
    super('the copy differs from the source');
  }
}

/** The copy itself, in the target's one transaction: shapes checked, every table written, then everything compared. */
function copyAndCheck(source: CopySource, url: string): Promise<StoreCopied> {
  return loadInto(url, source.tables(), async (load) => {
    const tables = load.tables();
    const problems = shapeProblems(source, tables);
    if (problems.length) throw new Error(`the two engines' schemas differ (a bug in this release): ${problems.join('; ')}`);
    const copied = await copyTables(source, load, tables);
    const differences = [
      ...copied.filter((c) => c.source !== c.target).map((c) => `${c.table}: ${c.source} rows in SQLite, ${c.target} in PostgreSQL`),
      ...(await checkFigures(source, load)),
    ];
    if (differences.length) throw new CopyDiffers(differences);
    return { schemaVersion: source.schemaVersion, tables: copied, figuresChecked: FIGURES.map((f) => f.table) };
  });
}

/** What refuses the copy before anything is written to the target (the target is migrated only after). */
async function refusalBefore(source: CopySource, url: string): Promise<CopyRefusal | null> {
  if (source.schemaVersion !== LATEST_SCHEMA_VERSION) return { kind: 'source_version', found: source.schemaVersion, expected: LATEST_SCHEMA_VERSION };
  const target = await inspectTarget(url, source.tables());
  if (target.state === 'unreachable') return { kind: 'target_unreachable', reason: target.reason };
  if (target.state === 'other_version') return { kind: 'target_version', found: target.version, expected: target.expected };
  if (target.state === 'not_empty') return { kind: 'target_not_empty', tables: target.tables };
  return null;
}

/**
 * Copies the SQLite database of `dataDir` into the PostgreSQL database at `url`. The SQLite database is held
 * exclusively from the first check to the end (a Tern starting meanwhile waits, then fails to open it).
 */
export async function copySqliteToPostgres(dataDir: string, url: string): Promise<CopyOutcome> {
  const opened = await openCopySource(dataDir);
  if (opened.state === 'missing') return refused({ kind: 'no_database', dataDir });
  if (opened.state === 'in_use') return refused({ kind: 'in_use', file: opened.file });
  const source = opened.source;
  try {
    const refusal = await refusalBefore(source, url);
    if (refusal) return refused(refusal);
    await migrateTarget(url);
    return { ok: true, value: await copyAndCheck(source, url) };
  } catch (err) {
    if (err instanceof CopyDiffers) return refused({ kind: 'copy_differs', differences: err.differences });
    if (err instanceof TargetFilledMeanwhile) return refused({ kind: 'target_not_empty', tables: err.tables });
    throw err;
  } finally {
    await source.close();
  }
}
