// Brings a PostgreSQL database up to the current schema, refusing a server too old and a schema too new.
import type pg from 'pg';
import { connectPostgres } from './sql.js';
import { PG_LATEST_SCHEMA_VERSION, PG_MIGRATIONS } from './migrations.js';

/** The oldest server Tern is tested and written for; older ones are refused at start rather than failing later on a query. */
export const OLDEST_SERVER = { num: 130000, name: 'PostgreSQL 13' } as const;

/**
 * A constant key for pg_advisory_xact_lock: processes starting together (two MTAs, an API) migrate one after
 * the other; the second finds the versions recorded and does nothing. Any 64-bit number unlikely to be taken
 * by another application on the same database will do; this is "tern" in ASCII.
 */
const MIGRATION_LOCK = 0x7465726e;

/** Refuses a server older than OLDEST_SERVER, naming both versions. Exported for its test. */
export async function refuseOldServer(client: Pick<pg.Client, 'query'>): Promise<void> {
  const { rows } = await client.query<{ num: string; version: string }>(
    "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version",
  );
  const row = rows[0]!;
  if (Number(row.num) < OLDEST_SERVER.num) {
    throw new Error(`the PostgreSQL server is version ${row.version}; Tern needs ${OLDEST_SERVER.name} or newer`);
  }
}

/**
 * A database a newer release migrated holds tables and states this release does not know (a rolled-back
 * upgrade): running on it could lose what they say, so this release refuses to start (as on SQLite).
 */
function refuseNewerSchema(version: number): void {
  if (version > PG_LATEST_SCHEMA_VERSION) {
    throw new Error(
      `the database is at schema version ${version}, newer than this release's ${PG_LATEST_SCHEMA_VERSION}: run the release that migrated it, or restore a backup taken before the upgrade`,
    );
  }
}

/** The migrations not yet applied, applied in one transaction under the migration lock; answers their versions. */
async function applyPending(client: pg.Client): Promise<number[]> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  const current = rows[0]?.version ?? 0;
  refuseNewerSchema(current);
  const applied: number[] = [];
  for (const migration of PG_MIGRATIONS) {
    if (migration.version <= current) continue;
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
    applied.push(migration.version);
  }
  return applied;
}

/**
 * Applies every migration not yet applied to the database of `url`. Safe to run from several processes at once:
 * the advisory lock is held until the transaction ends, and PostgreSQL's DDL is transactional, so a failed
 * migration leaves the schema as it was.
 */
export async function migratePostgres(url: string): Promise<number[]> {
  const client = await connectPostgres(url);
  try {
    await refuseOldServer(client);
    await client.query('BEGIN');
    try {
      const applied = await applyPending(client);
      await client.query('COMMIT');
      return applied;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  } finally {
    await client.end();
  }
}
