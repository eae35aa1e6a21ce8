// The SQLite side of `ternmail store copy` (store/copy.ts): the data directory's database opened exclusively, so
// that a running Tern is told apart from a stopped one, and read table by table in pages.
//
// A Tern process keeps its connections open while it runs, and in WAL mode every open connection holds a shared
// lock on the database file (the last one to close checkpoints the WAL, which is how SQLite tells it is the last).
// A connection in EXCLUSIVE locking mode asking for an exclusive transaction is refused at once (SQLITE_BUSY)
// while any other connection is open, idle or not: that refusal is "in use". Once granted, the lock is held
// until the copy ends, so a Tern starting meanwhile waits for it and fails to open, instead of writing rows the
// copy would miss.
import { existsSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import { databaseFile } from './open.js';
import type { CopySource } from '../copy.js';
import { MESSAGE_STATUSES } from '../../domain/queue-state.js';

/** Rows a page holds at most; and the bytes of its blobs (message bodies, icons), so that a page of large bodies stays small. */
const PAGE_ROWS = 1_000;
const PAGE_BYTES = 16 * 1024 * 1024;

/**
 * The statuses a message's recipients count in, from the rows message_statuses holds for it, space-separated in
 * MESSAGE_STATUSES' order: what PostgreSQL's search_statuses holds (postgres/log-listing.ts searchStatuses).
 */
const COUNTED_STATUSES = `(SELECT COALESCE(group_concat(status, ' '), '') FROM (SELECT s.status FROM message_statuses s
  WHERE s.message_rowid = messages.rowid AND s.n > 0
  ORDER BY ${MESSAGE_STATUSES.map((status) => `s.status = '${status}' DESC`).join(', ')}))`;

/**
 * Columns PostgreSQL keeps that SQLite has not, as SQLite knows them: the implicit rowid of `messages` (the
 * accepting order the log pages on and message_statuses keys on) and of `domains` (the number operators know a
 * domain by), the recipients' words of its search index, from the view that says what an index row holds
 * (message_search_rows, migration 6), and the statuses its recipients count in.
 */
const DERIVED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  domains: { rowid: 'rowid' },
  messages: {
    rowid: 'rowid',
    search_recipients: '(SELECT s.recipients FROM message_search_rows s WHERE s.rowid = messages.rowid)',
    search_statuses: COUNTED_STATUSES,
  },
};

/** The schema's record, which the target's own migration writes. */
const NOT_COPIED = new Set(['schema_migrations']);

type Row = Record<string, unknown>;

interface Shape {
  columns: Map<string, { type: string; pk: number }>;
  /** The key pages are walked by: the rowid, or the primary key of a WITHOUT ROWID table. */
  keys: string[];
}

const q = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function all(db: sqlite3.Database, sql: string, params: readonly unknown[] = []): Promise<Row[]> {
  return new Promise((resolve, reject) => db.all(sql, params, (err: Error | null, rows: Row[]) => (err ? reject(err) : resolve(rows))));
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

const close = (db: sqlite3.Database): Promise<void> => new Promise((resolve) => db.close(() => resolve()));

/** node-sqlite3 reads an INTEGER into a JavaScript number: one beyond 2^53 would arrive rounded, so it stops the copy. */
function exact(value: unknown, where: string): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new Error(`${where} holds ${value}, an integer too large to copy exactly`);
  }
  return value;
}

class SqliteCopySource implements CopySource {
  constructor(
    private readonly db: sqlite3.Database,
    readonly schemaVersion: number,
    private readonly shapes: ReadonlyMap<string, Shape>,
  ) {}

  tables(): readonly string[] {
    return [...this.shapes.keys()];
  }

  gives(table: string, column: string): boolean {
    return this.shapes.get(table)?.columns.has(column) === true || DERIVED[table]?.[column] !== undefined;
  }

  private expression(table: string, column: string): string {
    return this.shapes.get(table)?.columns.has(column) ? q(column) : DERIVED[table]![column]!;
  }

  async count(table: string): Promise<number> {
    const [row] = await all(this.db, `SELECT COUNT(*) AS n FROM ${q(table)}`);
    return Number(row!.n);
  }

  async rows(table: string, columns: readonly string[]): Promise<unknown[][]> {
    const rows = await all(this.db, `SELECT ${columns.map((c, i) => `${this.expression(table, c)} AS c${i}`).join(', ')} FROM ${q(table)}`);
    return rows.map((r) => columns.map((c, i) => exact(r[`c${i}`], `${table}.${c}`)));
  }

  async sums(table: string, by: readonly string[], sum: string): Promise<unknown[][]> {
    const rows = await all(this.db, `SELECT ${by.map(q).join(', ')}, SUM(${q(sum)}) AS total FROM ${q(table)} GROUP BY ${by.map(q).join(', ')}`);
    return rows.map((r) => [...by.map((c) => r[c]), exact(r.total, `the sum of ${table}.${sum}`)]);
  }

  /** How many rows from `after` on fit in a page: PAGE_ROWS, fewer when their blobs would pass PAGE_BYTES (at least one). */
  private async pageSize(table: string, columns: readonly string[], where: string, after: readonly unknown[]): Promise<number> {
    const shape = this.shapes.get(table)!;
    const blobs = columns.filter((c) => shape.columns.get(c)?.type.toUpperCase() === 'BLOB');
    if (!blobs.length) return PAGE_ROWS;
    const sizes = await all(
      this.db,
      `SELECT ${blobs.map((b) => `COALESCE(length(${q(b)}), 0)`).join(' + ')} AS n FROM ${q(table)}${where} ORDER BY ${shape.keys.map(q).join(', ')} LIMIT ${PAGE_ROWS}`,
      after,
    );
    let bytes = 0;
    let fit = 0;
    for (const { n } of sizes) {
      if (fit > 0 && bytes + Number(n) > PAGE_BYTES) break;
      bytes += Number(n);
      fit++;
    }
    return Math.max(fit, 1);
  }

  /** Pages walked by key (keyset paging): each page starts after the last key of the one before, read from an index. */
  async *pages(table: string, columns: readonly string[]): AsyncGenerator<unknown[][]> {
    const { keys } = this.shapes.get(table)!;
    const select = `SELECT ${keys.map((k, i) => `${q(k)} AS k${i}`).join(', ')}, ${columns.map((c, i) => `${this.expression(table, c)} AS c${i}`).join(', ')} FROM ${q(table)}`;
    const order = ` ORDER BY ${keys.map(q).join(', ')}`;
    let after: unknown[] = [];
    for (;;) {
      const where = after.length ? ` WHERE (${keys.map(q).join(', ')}) > (${keys.map(() => '?').join(', ')})` : '';
      const rows = await all(this.db, `${select}${where}${order} LIMIT ${await this.pageSize(table, columns, where, after)}`, after);
      if (!rows.length) return;
      yield rows.map((r) => columns.map((c, i) => exact(r[`c${i}`], `${table}.${c}`)));
      const last = rows[rows.length - 1]!;
      after = keys.map((_, i) => last[`k${i}`]);
    }
  }

  async close(): Promise<void> {
    // Nothing was written: the exclusive transaction only held the lock.
    await exec(this.db, 'ROLLBACK').catch(() => undefined);
    await close(this.db);
  }
}

/** Every table holding Tern's rows, with its columns and paging key; FTS5's tables (a virtual table and its shadows) left out. */
async function readShapes(db: sqlite3.Database): Promise<Map<string, Shape>> {
  const tables = await all(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  const virtual = tables.filter((t) => /^CREATE\s+VIRTUAL\s+TABLE/i.test(String(t.sql))).map((t) => String(t.name));
  const shapes = new Map<string, Shape>();
  for (const { name, sql } of tables) {
    const table = String(name);
    if (NOT_COPIED.has(table) || virtual.some((v) => table === v || table.startsWith(`${v}_`))) continue;
    const info = await all(db, `SELECT name, type, pk FROM pragma_table_info(?)`, [table]);
    const columns = new Map(info.map((c) => [String(c.name), { type: String(c.type), pk: Number(c.pk) }]));
    const pk = [...columns].filter(([, c]) => c.pk > 0).sort((a, b) => a[1].pk - b[1].pk);
    shapes.set(table, { columns, keys: /WITHOUT\s+ROWID\s*$/i.test(String(sql)) ? pk.map(([c]) => c) : ['rowid'] });
  }
  return shapes;
}

async function schemaVersion(db: sqlite3.Database): Promise<number> {
  try {
    const [row] = await all(db, 'SELECT MAX(version) AS version FROM schema_migrations');
    return Number(row?.version ?? 0);
  } catch {
    return 0; // no schema record: not a database any Tern migrated
  }
}

export type OpenedSource = { state: 'missing' } | { state: 'in_use'; file: string } | { state: 'open'; source: CopySource };

/** The database of `dataDir`, held exclusively until the source is closed; or why it cannot be. */
export async function openCopySource(dataDir: string): Promise<OpenedSource> {
  const file = databaseFile(dataDir);
  if (!existsSync(file)) return { state: 'missing' };
  // Read-write without create: a WAL database's recovery (after a crash) may have to write.
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(opened)));
  });
  try {
    db.configure('busyTimeout', 0);
    await exec(db, 'PRAGMA locking_mode = EXCLUSIVE');
    await exec(db, 'BEGIN EXCLUSIVE');
  } catch (err) {
    await close(db);
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return { state: 'in_use', file };
    throw err;
  }
  try {
    return { state: 'open', source: new SqliteCopySource(db, await schemaVersion(db), await readShapes(db)) };
  } catch (err) {
    await exec(db, 'ROLLBACK').catch(() => undefined);
    await close(db);
    throw err;
  }
}
