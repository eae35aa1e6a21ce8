// The PostgreSQL side of `ternmail store copy` (store/copy.ts): the target looked at before anything is written
// (reachable, a server Tern runs on, empty, at this release's schema or none), migrated, then filled in one
// transaction on one connection: every table locked, found empty again under the lock, written page by page
// with multi-row inserts (`INSERT … SELECT * FROM unnest($1::bigint[], …)`: one parameter per column, whatever
// the page's length), ids kept, each identity's sequence moved past the greatest id copied.
import type pg from 'pg';
import { connectPostgres } from './sql.js';
import { migratePostgres, refuseOldServer } from './migrate.js';
import { PG_LATEST_SCHEMA_VERSION } from './migrations.js';
import type { BulkLoad, TargetColumn, TargetTable } from '../copy.js';

/** The schema's record: written by the migration, not copied, not counted as data. */
const SCHEMA_RECORD = 'schema_migrations';

/**
 * Rows the migration itself writes (the ledger's totals, at zero for every kind): a table holding only these is
 * empty as far as the copy is concerned, and they are deleted before the source's rows take their place.
 * The value is the condition under which a row is data.
 */
const SEEDED: Readonly<Record<string, string>> = { credit_totals: 'total <> 0 OR entries <> 0' };

/** The column types the two schemas use (SQLite's INTEGER, TEXT, BLOB; the 0/1 flags as SMALLINT). */
const COPIED_TYPES = new Set(['bigint', 'integer', 'smallint', 'text', 'bytea']);

export type TargetState =
  | { state: 'unreachable'; reason: string }
  | { state: 'other_version'; version: number; expected: number }
  | { state: 'not_empty'; tables: string[] }
  | { state: 'empty' };

const q = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Thrown when the target, empty when looked at, holds rows once locked (something wrote meanwhile). */
export class TargetFilledMeanwhile extends Error {
  constructor(readonly tables: string[]) {
    super(`the target database is no longer empty: ${tables.join(', ')}`);
  }
}

async function existingTables(client: pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  return new Set(rows.map((r) => r.name));
}

/** The tables among `tables` holding data (rows other than the migration's seeds). */
async function tablesWithData(client: pg.Client, tables: readonly string[]): Promise<string[]> {
  const filled: string[] = [];
  for (const table of tables) {
    const { rows } = await client.query(`SELECT 1 FROM ${q(table)}${SEEDED[table] ? ` WHERE ${SEEDED[table]}` : ''} LIMIT 1`);
    if (rows.length) filled.push(table);
  }
  return filled;
}

async function stateOf(client: pg.Client, ternTables: readonly string[]): Promise<TargetState> {
  const existing = await existingTables(client);
  const present = ternTables.filter((t) => existing.has(t));
  if (!existing.has(SCHEMA_RECORD)) {
    // Tables of Tern's names without Tern's record of its schema: not a database to migrate into.
    return present.length ? { state: 'not_empty', tables: present } : { state: 'empty' };
  }
  const { rows } = await client.query<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${SCHEMA_RECORD}`);
  const version = rows[0]?.version ?? 0;
  if (version !== PG_LATEST_SCHEMA_VERSION) return { state: 'other_version', version, expected: PG_LATEST_SCHEMA_VERSION };
  const filled = await tablesWithData(client, present);
  return filled.length ? { state: 'not_empty', tables: filled } : { state: 'empty' };
}

/** What the database at `url` is, for the tables named `ternTables`; nothing is written. */
export async function inspectTarget(url: string, ternTables: readonly string[]): Promise<TargetState> {
  let client: pg.Client | undefined;
  try {
    client = await connectPostgres(url);
    await refuseOldServer(client);
  } catch (err) {
    await client?.end().catch(() => undefined);
    return { state: 'unreachable', reason: (err as Error).message };
  }
  try {
    return await stateOf(client, ternTables);
  } finally {
    await client.end();
  }
}

/** Brings an empty target to this release's schema (its own transaction, as at any start). */
export async function migrateTarget(url: string): Promise<void> {
  await migratePostgres(url);
}

interface Described extends TargetTable {
  columns: ReadonlyArray<TargetColumn & { type: string; identity: boolean }>;
}

async function describeColumns(client: pg.Client): Promise<Map<string, Described>> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_identity: string; is_generated: string }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_identity, c.is_generated FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = current_schema() AND c.table_name <> $1 ORDER BY c.table_name, c.ordinal_position`,
    [SCHEMA_RECORD],
  );
  const tables = new Map<string, Described>();
  for (const r of rows) {
    // A generated column (the log search's tsvector) is computed by PostgreSQL from the columns copied.
    if (r.is_generated === 'ALWAYS') continue;
    if (!COPIED_TYPES.has(r.data_type)) throw new Error(`${r.table_name}.${r.column_name} is of type ${r.data_type}, which the copy does not know`);
    const table = tables.get(r.table_name) ?? { name: r.table_name, columns: [] };
    tables.set(r.table_name, { ...table, columns: [...table.columns, { name: r.column_name, type: r.data_type, identity: r.is_identity === 'YES' }] });
  }
  return tables;
}

/**
 * Tables ordered so that a table comes after every table its foreign keys point to. A table pointing to itself
 * (teams.parent_id) is written in the order of its ids, which the source pages by: a parent is older than its child.
 */
async function parentsFirst(client: pg.Client, names: readonly string[]): Promise<string[]> {
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
     JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
     JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  const remaining = new Set(names);
  const ordered: string[] = [];
  while (remaining.size) {
    const ready = [...remaining].filter((t) => !edges.some((e) => e.child === t && e.parent !== t && remaining.has(e.parent))).sort();
    if (!ready.length) throw new Error(`the target's foreign keys form a cycle among ${[...remaining].join(', ')}`);
    for (const t of ready) {
      ordered.push(t);
      remaining.delete(t);
    }
  }
  return ordered;
}

class PgBulkLoad implements BulkLoad {
  constructor(
    private readonly client: pg.Client,
    private readonly ordered: readonly Described[],
  ) {}

  tables(): readonly TargetTable[] {
    return this.ordered;
  }

  private described(table: TargetTable): Described {
    const found = this.ordered.find((t) => t.name === table.name);
    if (!found) throw new Error(`no table ${table.name} in the target`);
    return found;
  }

  async insert(table: TargetTable, rows: readonly unknown[][]): Promise<void> {
    if (!rows.length) return;
    const { columns } = this.described(table);
    const arrays = columns.map((_, i) => rows.map((row) => row[i] ?? null));
    // GENERATED ALWAYS identities take the copied ids only when told to.
    const overriding = columns.some((c) => c.identity) ? ' OVERRIDING SYSTEM VALUE' : '';
    await this.client.query(
      `INSERT INTO ${q(table.name)} (${columns.map((c) => q(c.name)).join(', ')})${overriding}
       SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})`,
      arrays,
    );
  }

  async restartIdentities(tables: readonly TargetTable[]): Promise<void> {
    for (const table of tables) {
      for (const column of this.described(table).columns.filter((c) => c.identity)) {
        // is_called false: the next id is exactly this one (1 for an empty table).
        await this.client.query(`SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX(${q(column.name)}), 0) + 1, false) FROM ${q(table.name)}`, [
          q(table.name),
          column.name,
        ]);
      }
    }
  }

  async count(table: string): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${q(table)}`);
    return Number(rows[0]!.n);
  }

  async rows(table: string, columns: readonly string[]): Promise<unknown[][]> {
    const { rows } = await this.client.query<unknown[]>({ text: `SELECT ${columns.map(q).join(', ')} FROM ${q(table)}`, rowMode: 'array' });
    return rows;
  }

  async sums(table: string, by: readonly string[], sum: string): Promise<unknown[][]> {
    const groups = by.map(q).join(', ');
    const { rows } = await this.client.query<unknown[]>({ text: `SELECT ${groups}, SUM(${q(sum)}) FROM ${q(table)} GROUP BY ${groups}`, rowMode: 'array' });
    return rows;
  }
}

/** Locks every table, checks they are still empty, and clears the migration's seeds; answers the tables in write order. */
async function prepare(client: pg.Client, ternTables: readonly string[]): Promise<Described[]> {
  const described = await describeColumns(client);
  const names = [...described.keys()];
  // Nothing else reads or writes these tables until the copy commits or rolls back.
  await client.query(`LOCK TABLE ${names.map(q).join(', ')} IN ACCESS EXCLUSIVE MODE`);
  const filled = await tablesWithData(
    client,
    ternTables.filter((t) => described.has(t)),
  );
  if (filled.length) throw new TargetFilledMeanwhile(filled);
  for (const table of Object.keys(SEEDED)) if (described.has(table)) await client.query(`DELETE FROM ${q(table)}`);
  return (await parentsFirst(client, names)).map((name) => described.get(name)!);
}

/**
 * Runs `work` in one transaction on one connection to the (migrated) target: committed when it resolves, rolled
 * back, with everything it wrote, when it throws.
 */
export async function loadInto<T>(url: string, ternTables: readonly string[], work: (load: BulkLoad) => Promise<T>): Promise<T> {
  const client = await connectPostgres(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      const result = await work(new PgBulkLoad(client, await prepare(client, ternTables)));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await client.end();
  }
}
