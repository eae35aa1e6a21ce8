// Brings a database up to the current schema: every migration not yet applied, each in its own transaction.
import type { Sql } from './sql.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './migrations.js';

/** Applies every migration not yet applied. Safe to run from several processes: each takes the write lock. */
export async function migrate(sql: Sql): Promise<number[]> {
  await sql.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  await refuseNewerSchema(sql);
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

/**
 * A database a newer release migrated holds tables and states this release does not know (a rolled-back
 * upgrade): running on it could lose what they say, so this release refuses to start.
 */
async function refuseNewerSchema(sql: Sql): Promise<void> {
  const row = await sql.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  if (row && row.version !== null && row.version > LATEST_SCHEMA_VERSION) {
    throw new Error(
      `the database is at schema version ${row.version}, newer than this release's ${LATEST_SCHEMA_VERSION}: run the release that migrated it, or restore a backup taken before the upgrade`,
    );
  }
}
