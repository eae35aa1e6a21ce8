// A SQLite database file of a test's own, closed and removed when the test ends; and one as an older release left it.
import type { Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { MIGRATIONS } from '../../shared/store/sqlite/migrations.js';

export async function tempDatabase(t: Test, options: { busyTimeoutMs?: number } = {}): Promise<{ sql: Sql; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-sql-'));
  const file = join(dir, 'test.db');
  const sql = await openSqlite(file, options);
  t.teardown(async () => {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { sql, file };
}

/**
 * A database as an older release left it: migrations 1 to `version` applied and recorded in schema_migrations,
 * each in its own transaction, as migrate() does; the newer ones are then applied by opening the store.
 */
export async function migratedUpTo(sql: Sql, version: number, appliedAt = '2026-01-01T10:00:00.000Z'): Promise<void> {
  await sql.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  await migratedOn(sql, 0, version, appliedAt);
}

/** The migrations after `after` up to `version` applied and recorded, on a database migratedUpTo `after`. */
export async function migratedOn(sql: Sql, after: number, version: number, appliedAt = '2026-01-01T10:00:00.000Z'): Promise<void> {
  for (const m of MIGRATIONS.filter((m) => m.version > after && m.version <= version)) {
    await sql.tx(async (q) => {
      await q.exec(m.sql);
      if (m.edit) await m.edit(q);
      await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, appliedAt]);
    });
  }
}
