// SQLite's LogLoading (store/log-loader.ts): a bulk loader of synthetic log rows and a query-plan explainer, for the
// benchmarks (bench/logs.ts and others), on connections of their own beside a deployment's. Not for the product.
import sqlite3 from 'sqlite3';
import type { EngineLogLoading, ExplainedStatement, LoadedMessage, LoadedRecipient, LogLoader, ListExplainer } from '../log-loader.js';
import { databaseFile } from './open.js';
import { listStatements, type Statement } from './log-listing.js';
import { chunksByParams } from './write-batch.js';
import { LOGGED_COLUMNS, loggedValues } from './message-insert.js';
import { bumpKeyed } from './figure-counters.js';
import { depthBumps, figuresOfNew } from '../../domain/figures.js';
import { SqliteUnitOfWork } from './unit-of-work.js';
import type { Queryable } from './sql.js';

// --- node-sqlite3, promised ---

function open(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(db)));
  });
}
const exec = (db: sqlite3.Database, sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
const run = (db: sqlite3.Database, sql: string, params: readonly unknown[]) =>
  new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
const all = <T>(db: sqlite3.Database, sql: string, params: readonly unknown[] = []) =>
  new Promise<T[]>((resolve, reject) => db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
const close = (db: sqlite3.Database) => new Promise<void>((resolve) => db.close(() => resolve()));

/** The loader's connection as the engine's writers see one (for the figure counters). */
const queryable = (db: sqlite3.Database): Queryable => ({
  get: async (sql, params) => (await all<never>(db, sql, params))[0],
  all: (sql, params) => all(db, sql, params),
  run: async (sql, params = []) => {
    await run(db, sql, params);
    return { changes: 0, lastId: 0 };
  },
  exec: (sql) => exec(db, sql),
});

/** The figure counts and queue depths the loaded messages' recipients stand in (domain/figures.ts), as the intake and the queue's moves keep them. */
async function countFigures(db: sqlite3.Database, messages: readonly LoadedMessage[], from: number): Promise<void> {
  const depths = depthBumps(messages.flatMap((m) => m.recipients.map((r) => ({ teamId: m.teamId, from: null, to: r.state }))));
  await new SqliteUnitOfWork(queryable(db)).counters.bumpDepths(depths);
  await bumpKeyed(
    queryable(db),
    messages.flatMap((m, i) =>
      figuresOfNew(
        m.id,
        m.recipients.map((r) => r.state),
      ).map((f) => ({ rowid: from + i, teamId: m.teamId, createdAt: m.createdAt, domainId: m.domainId, status: f.status, by: f.by })),
    ),
  );
}

// --- the loader ---

/** SQLite binds up to 32,766 values a statement: a multi-row INSERT stays under that. */
const MAX_PARAMS = 30_000;

const MESSAGE_COLUMNS = `rowid, ${LOGGED_COLUMNS}, status, error, created_at, sent_at, updated_at`;
const RECIPIENT_COLUMNS = 'message_id, team_id, email, name, kind, domain, state, reason, next_attempt_at, queued_at, updated_at';

/** A message's row, its rowid first: the loader numbers the messages itself, in the order they come. */
const messageRow = (m: LoadedMessage, rowid: number): unknown[] => [rowid, ...loggedValues(m), m.status, m.error, m.createdAt, m.sentAt, m.updatedAt];

const recipientRow = (messageId: string, teamId: number, r: LoadedRecipient): unknown[] => [
  messageId,
  teamId,
  r.email,
  r.name,
  r.kind,
  r.domain,
  r.state,
  r.reason,
  r.nextAttemptAt,
  r.queuedAt,
  r.updatedAt,
];

/** INSERT of many rows a statement. */
async function insertRows(db: sqlite3.Database, head: string, rows: ReadonlyArray<readonly unknown[]>): Promise<void> {
  if (!rows.length) return;
  const marks = `(${Array(rows[0]!.length).fill('?').join(',')})`;
  for (const chunk of chunksByParams(rows, rows[0]!.length, MAX_PARAMS)) {
    await run(db, `${head} VALUES ${Array(chunk.length).fill(marks).join(',')}`, chunk.flat());
  }
}

/**
 * Opens the loader's own connection to a deployment's database (which must exist, migrated). It does not wait
 * for an fsync (synchronous = OFF) and keeps a large page cache: the benchmark's data is thrown away after, and
 * loading a million messages should take minutes, not hours. Message triggers (the counters of migration 4)
 * run as they do for insert(), and the figure counters (migration 31) are moved as insert() moves them.
 */
async function openLogLoader(dataDir: string): Promise<LogLoader> {
  const db = await open(databaseFile(dataDir));
  await exec(db, 'PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA foreign_keys = ON');
  const [first] = await all<{ next: number }>(db, 'SELECT COALESCE(MAX(rowid), 0) + 1 AS next FROM messages');
  let next = first!.next;
  return {
    async writeBatch(messages) {
      if (!messages.length) return;
      const from = next;
      await exec(db, 'BEGIN IMMEDIATE');
      try {
        await insertRows(
          db,
          `INSERT INTO messages (${MESSAGE_COLUMNS})`,
          messages.map((m, i) => messageRow(m, from + i)),
        );
        await insertRows(
          db,
          `INSERT INTO recipients (${RECIPIENT_COLUMNS})`,
          messages.flatMap((m) => m.recipients.map((r) => recipientRow(m.id, m.teamId, r))),
        );
        await countFigures(db, messages, from);
        // As insert() indexes them: from the view that says what an index row holds (migration 6).
        await run(db, 'INSERT INTO messages_fts (rowid, subject, from_email, recipients, status) SELECT * FROM message_search_rows WHERE rowid BETWEEN ? AND ?', [
          from,
          from + messages.length - 1,
        ]);
        await exec(db, 'COMMIT');
      } catch (err) {
        await exec(db, 'ROLLBACK').catch(() => undefined);
        throw err;
      }
      next = from + messages.length;
    },
    checkpoint: () => exec(db, 'PRAGMA wal_checkpoint(TRUNCATE)'),
    close: () => close(db),
  };
}

// --- the explainer ---

async function explain(db: sqlite3.Database, st: Statement, runs: number): Promise<Omit<ExplainedStatement, 'statement'>> {
  const plan = await all<{ id: number; parent: number; detail: string }>(db, `EXPLAIN QUERY PLAN ${st.sql}`, st.params);
  const runsMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await all(db, st.sql, st.params);
    runsMs.push(performance.now() - t0);
  }
  return { plan: plan.map((p) => p.detail), runsMs };
}

/**
 * Opens a plain connection (the engine's defaults, no pragma of the loader's) to a deployment's database, to
 * show what SQLite does for the statements MessageStore.list() runs (listStatements: exactly those) and how
 * long they take without HTTP around them.
 */
async function openListExplainer(dataDir: string): Promise<ListExplainer> {
  const db = await open(databaseFile(dataDir));
  return {
    async explainList(teamId, query, runs) {
      const statements = listStatements(teamId, query);
      if (!statements) return [];
      return [
        { statement: 'page', ...(await explain(db, statements.page, runs)) },
        { statement: 'count', ...(await explain(db, statements.count, runs)) },
      ];
    },
    close: () => close(db),
  };
}

export const sqliteLogLoading: EngineLogLoading = { openLogLoader, openListExplainer };
