// The PostgreSQL engine's base: its SQL layer (numbers, transactions, unique violations) and its migrations,
// numbered as SQLite's, applied once under a lock, refusing a schema newer than this release.
import t from 'tap';
import pg from 'pg';
import { LATEST_SCHEMA_VERSION } from '../../shared/store/sqlite/migrations.js';
import { PG_LATEST_SCHEMA_VERSION, PG_MIGRATIONS } from '../../shared/store/postgres/migrations.js';
import { migratePostgres, refuseOldServer } from '../../shared/store/postgres/migrate.js';
import { openPostgresStore } from '../../shared/store/postgres/open.js';
import { PgMessageStore } from '../../shared/store/postgres/messages.js';
import { isUniqueViolation, openPostgres } from '../../shared/store/postgres/sql.js';
import { migrate } from '../../shared/store/sqlite/migrate.js';
import { startPostgres } from '../harness/postgres.js';
import { tempDatabase } from './temp-sql.js';

t.test("the PostgreSQL schema's newest version is SQLite's newest version", async (t) => {
  t.equal(PG_LATEST_SCHEMA_VERSION, LATEST_SCHEMA_VERSION);
});

t.test('a server older than PostgreSQL 13 is refused with both versions named; 13 and newer are accepted', async (t) => {
  const server = (num: string, version: string) => ({ query: () => Promise.resolve({ rows: [{ num, version }] }) }) as unknown as Pick<pg.Client, 'query'>;
  await t.rejects(refuseOldServer(server('120017', '12.17')), /the PostgreSQL server is version 12\.17; Tern needs PostgreSQL 13 or newer/);
  await t.resolves(refuseOldServer(server('130000', '13.0')));
  await t.resolves(refuseOldServer(server('150008', '15.8 (Debian 15.8-0+deb12u1)')));
});

const cluster = await startPostgres();
t.teardown(() => cluster.stop());

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

t.test('an empty database is migrated once, even by several processes starting at the same moment', async (t) => {
  const url = await cluster.createDatabase();
  const runs = await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
  t.same(
    runs.filter((applied) => applied.length > 0),
    [PG_MIGRATIONS.map((m) => m.version)],
    'one run applies the baseline and every later migration, the others find them applied',
  );
  t.same(await migratePostgres(url), [], 'a later start applies nothing');
  const { rows } = await query(url, 'SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    rows,
    PG_MIGRATIONS.map((m) => ({ version: m.version })),
  );
  t.equal(PG_MIGRATIONS.at(-1)?.version, LATEST_SCHEMA_VERSION);
});

t.test('a database migrated by a newer release is refused with what to do, and left as it is', async (t) => {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  await query(url, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST_SCHEMA_VERSION + 1}, 'from the future', '2030-01-01T00:00:00.000Z')`);
  await t.rejects(migratePostgres(url), /schema version \d+, newer than this release's \d+: run the release that migrated it, or restore a backup/);
  await t.rejects(openPostgresStore(url), /newer than this release's/, 'the store does not open on it');
  const { rows } = await query(url, 'SELECT MAX(version) AS version FROM schema_migrations');
  t.same(rows, [{ version: LATEST_SCHEMA_VERSION + 1 }], 'its record kept as it was');
});

t.test('the schema keeps the queue and the log search indexed as the engine needs them', async (t) => {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const { rows } = await query(url, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('recipients', 'messages') ORDER BY indexname");
  const definition = new Map(rows.map((r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef]));
  t.match(definition.get('recipients_due'), /WHERE \(state = ANY/, 'what is due: a partial index');
  t.match(definition.get('recipients_leased'), /WHERE \(state = 'sending'/, 'expired leases: a partial index');
  t.match(definition.get('messages_search'), /USING gin \(search\)/, 'the log search: GIN over a tsvector');
  const triggers = await query(url, 'SELECT tgname FROM pg_trigger WHERE NOT tgisinternal');
  t.same(triggers.rows, [], 'no trigger decides anything');
});

t.test('BIGINT and NUMERIC values come back as numbers when exact, and as text (refused by decoders) when not', async (t) => {
  const sql = openPostgres(await cluster.createDatabase());
  t.teardown(() => sql.close());
  const row = await sql.get('SELECT 42::bigint AS id, COUNT(*) AS n, SUM(x) AS total, 9007199254740993::bigint AS huge FROM (VALUES (1::bigint), (2::bigint)) v(x)');
  t.same(row, { id: 42, n: 2, total: 3, huge: '9007199254740993' });
});

t.test('a transaction commits all of its work or, when the work throws, none of it', async (t) => {
  const sql = openPostgres(await cluster.createDatabase());
  t.teardown(() => sql.close());
  await sql.run('CREATE TABLE things (name TEXT PRIMARY KEY)');
  await sql.tx(async (q) => {
    await q.run('INSERT INTO things (name) VALUES ($1)', ['kept']);
  });
  await t.rejects(
    sql.tx(async (q) => {
      await q.run('INSERT INTO things (name) VALUES ($1)', ['undone']);
      throw new Error('the work failed');
    }),
    /the work failed/,
  );
  t.same(await sql.all('SELECT name FROM things ORDER BY name'), [{ name: 'kept' }]);
  t.same(await sql.run('UPDATE things SET name = $1 WHERE name = $2', ['renamed', 'kept']), { changes: 1 }, 'run answers the rows it changed');
});

t.test('a unique violation is told apart, by its constraint, from any other failure', async (t) => {
  const sql = openPostgres(await cluster.createDatabase());
  t.teardown(() => sql.close());
  await sql.run('CREATE TABLE things (name TEXT CONSTRAINT things_name UNIQUE, n INTEGER CHECK (n > 0))');
  await sql.run('INSERT INTO things (name, n) VALUES ($1, 1)', ['one']);
  const failure = (statement: string) =>
    sql.run(statement).then(
      () => undefined,
      (err: unknown) => err,
    );
  const duplicate = await failure("INSERT INTO things (name, n) VALUES ('one', 1)");
  t.ok(isUniqueViolation(duplicate), 'a unique violation');
  t.ok(isUniqueViolation(duplicate, 'things_name'), 'of that constraint');
  t.notOk(isUniqueViolation(duplicate, 'other_index'), 'not of another');
  t.notOk(isUniqueViolation(await failure("INSERT INTO things (name, n) VALUES ('two', 0)")), 'a CHECK failure is not one');
  t.notOk(isUniqueViolation(new Error('duplicate key value')), 'nor an error of another kind');
});

/** SQLite's own tables for its full-text index (FTS5's shadow tables), which PostgreSQL's tsvector column replaces. */
const SQLITE_ONLY = /^messages_fts/;
/** PostgreSQL's columns that stand for what SQLite keeps elsewhere: the rowid, and the search document and what it is made of. */
const POSTGRES_ONLY = new Set(['messages.rowid', 'domains.rowid', 'messages.search_recipients', 'messages.search_statuses', 'messages.search']);

t.test('both engines at the newest version hold the same tables with the same columns, and the same seeded rows', async (t) => {
  const { sql: sqlite } = await tempDatabase(t);
  await migrate(sqlite);
  const tables = (await sqlite.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    .map((r) => r.name)
    .filter((name) => !SQLITE_ONLY.test(name));
  const sqliteColumns: string[] = [];
  for (const table of tables) {
    const columns = await sqlite.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`);
    sqliteColumns.push(...columns.map((c) => `${table}.${c.name}`));
  }
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const { rows } = await query(url, "SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = 'public'");
  const postgresColumns = rows.map((r: { name: string }) => r.name).filter((name) => !POSTGRES_ONLY.has(name));
  t.same(postgresColumns.sort(), sqliteColumns.sort());
  const seeded = 'SELECT kind, total, entries FROM credit_totals ORDER BY kind';
  t.same((await query(url, seeded)).rows, await sqlite.all(seeded), 'the ledger totals start at zero for every kind');
});

t.test('the log list is planned for its values on every call, never left to a prepared generic plan', async (t) => {
  // A named statement is planned for its values for five runs only; then PostgreSQL may keep one generic plan for
  // every search word and status, which at 1,000,000 messages made a word+status search walk the whole log.
  const url = await cluster.createDatabase();
  await (await openPostgresStore(url)).close();
  const sql = openPostgres(url, { max: 1 });
  t.teardown(() => sql.close());
  const messages = new PgMessageStore(sql);
  for (let i = 0; i < 7; i++) await messages.list(1, { page: 1, perPage: 25, search: 'invoice', status: 'sent', searchCountLimit: 1000 });
  const prepared = await sql.all<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  t.same(
    prepared.filter((p) => p.statement.includes('to_tsquery')),
    [],
    'no prepared statement of the list on its one connection',
  );
});
