// The database's backup through SQLite's online backup API (sqlite3_backup_*, node-sqlite3's Database#backup).
// The copy is made in one step (-1: every page), which runs inside one read transaction: the copy is one
// snapshot of committed data, and in WAL mode that read blocks no writer, so the API and the MTA go on
// writing meanwhile. (Copied in several steps, a write from another connection between two steps would
// restart the copy from its first page, and a busy database might never finish.)
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import sqlite3 from 'sqlite3';
import { databaseFile } from './open.js';
import { LATEST_SCHEMA_VERSION } from './migrations.js';
import type { DatabaseBackup, DatabaseCopy } from '../database-backup.js';

/** How long a step refused as busy (a checkpoint, a WAL recovery by another process) is tried again. */
const BUSY_RETRY_MS = 10_000;

type SqliteError = Error & { code?: string };

function open(file: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

const close = (db: sqlite3.Database): Promise<void> => new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));

function all<T>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all(sql, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))));
}

const isBusy = (err: SqliteError): boolean => err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED';

/** One step of every page; 'busy' when SQLite asks to try again later. */
function stepAll(backup: sqlite3.Backup): Promise<'done' | 'busy'> {
  return new Promise((resolve, reject) =>
    backup.step(-1, (err, done) => {
      if (err) return isBusy(err) ? resolve('busy') : reject(err);
      resolve(done ? 'done' : 'busy');
    }),
  );
}

async function copyPages(source: sqlite3.Database, target: string): Promise<void> {
  const backup = await new Promise<sqlite3.Backup>((resolve, reject) => {
    const started: sqlite3.Backup = source.backup(target, (err) => (err ? reject(err) : resolve(started)));
  });
  try {
    const deadline = Date.now() + BUSY_RETRY_MS;
    while ((await stepAll(backup)) === 'busy') {
      if (Date.now() > deadline) throw new Error(`the database stayed busy for ${BUSY_RETRY_MS} ms; no copy was made`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await new Promise<void>((resolve) => backup.finish(() => resolve()));
  }
}

/**
 * The copy made one self-contained file (it came with the live database's WAL mode, which would leave -wal and
 * -shm files beside it; Tern turns WAL on again when it opens it), checked page by page, and its schema version.
 */
async function settle(file: string): Promise<DatabaseCopy> {
  const db = await open(file, sqlite3.OPEN_READWRITE);
  try {
    await all(db, 'PRAGMA journal_mode = DELETE');
    const check = await all<{ quick_check: string }>(db, 'PRAGMA quick_check');
    if (check.length !== 1 || check[0]!.quick_check !== 'ok') throw new Error(`the copy of the database is not sound: ${check.map((r) => r.quick_check).join('; ')}`);
    const [row] = await all<{ version: number | null }>(db, 'SELECT MAX(version) AS version FROM schema_migrations');
    return { schemaVersion: row?.version ?? 0 };
  } finally {
    await close(db);
  }
}

export const sqliteDatabaseBackup: DatabaseBackup = {
  fileName: basename(databaseFile('.')),
  latestSchemaVersion: LATEST_SCHEMA_VERSION,
  async copy(dataDir, target) {
    const file = databaseFile(dataDir);
    if (!existsSync(file)) throw new Error(`no database at ${file}`);
    if (existsSync(target)) throw new Error(`${target} exists already`);
    // Read-write without create: reading a WAL database needs its shared-memory file, which a reader may have to make.
    const source = await open(file, sqlite3.OPEN_READWRITE);
    try {
      await copyPages(source, target);
    } finally {
      await close(source);
    }
    return settle(target);
  },
};
