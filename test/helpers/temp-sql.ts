// A SQLite database file of a test's own, closed and removed when the test ends.
import type { Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../store/sqlite/sql.js';

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
