// Brings a database up to the current schema: every migration not yet applied, each in its own transaction.
import type { Sql } from './sql.js';
import { MIGRATIONS } from './migrations.js';

/** Applies every migration not yet applied. Safe to run from several processes: each takes the write lock. */
export async function migrate(sql: Sql): Promise<number[]> {
  await sql.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    const done = await sql.tx(async (q) => {
      if (await q.get('SELECT version FROM schema_migrations WHERE version = ?', [migration.version])) return false;
      await q.exec(migration.sql);
      if (migration.edit) await migration.edit(q);
      await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, new Date().toISOString()]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
