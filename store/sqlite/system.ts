// The system repository on SQLite: the schema version from schema_migrations, the library's version.
import type { SystemRepository } from '../system.js';
import type { Sql } from './sql.js';

export class SystemStore implements SystemRepository {
  constructor(private readonly sql: Sql) {}

  async schemaVersion(): Promise<number> {
    const row = await this.sql.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
    return row?.version ?? 0;
  }

  async engineVersion(): Promise<string> {
    const row = await this.sql.get<{ version: string }>('SELECT sqlite_version() AS version');
    return `SQLite ${row?.version ?? 'unknown'}`;
  }
}
