// The system repository on SQLite: the schema version from schema_migrations, the library's version, and the
// platform's settings (platform_settings, one row per name).
import type { RecordedBackup, StoredSystemSender, SystemRepository } from '../system.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { Queryable, Sql } from './sql.js';
import { AuditLogStore } from './audit-log.js';

const SYSTEM_SENDER = 'system_mail.from';
const LAST_BACKUP = 'backup.last';

type SettingRow = {
  value: string;
  updated_by: number | null;
  updated_at: string;
};

async function readSender(q: Queryable): Promise<StoredSystemSender | null> {
  const row = await q.get<SettingRow>('SELECT value, updated_by, updated_at FROM platform_settings WHERE name = ?', [SYSTEM_SENDER]);
  return row ? { address: row.value, setBy: row.updated_by, at: row.updated_at } : null;
}

export class SystemStore implements SystemRepository {
  readonly engine = 'sqlite';

  constructor(private readonly sql: Sql) {}

  async schemaVersion(): Promise<number> {
    const row = await this.sql.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
    return row?.version ?? 0;
  }

  async engineVersion(): Promise<string> {
    const row = await this.sql.get<{ version: string }>('SELECT sqlite_version() AS version');
    return `SQLite ${row?.version ?? 'unknown'}`;
  }

  systemSender(): Promise<StoredSystemSender | null> {
    return readSender(this.sql);
  }

  setSystemSender(sender: StoredSystemSender, audit: (before: StoredSystemSender | null) => NewAuditEntry): Promise<StoredSystemSender | null> {
    return this.sql.tx(async (q) => {
      const before = await readSender(q);
      await q.run(
        `INSERT INTO platform_settings (name, value, updated_by, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
        [SYSTEM_SENDER, sender.address, sender.setBy, sender.at],
      );
      await AuditLogStore.insert(q, audit(before));
      return before;
    });
  }

  async lastBackup(): Promise<RecordedBackup | null> {
    const row = await this.sql.get<SettingRow>('SELECT value, updated_by, updated_at FROM platform_settings WHERE name = ?', [LAST_BACKUP]);
    if (!row) return null;
    const stored = JSON.parse(row.value) as Omit<RecordedBackup, 'takenAt'>;
    return { file: stored.file, bytes: stored.bytes, sha256: stored.sha256, takenAt: row.updated_at };
  }

  async recordBackup(backup: RecordedBackup): Promise<boolean> {
    const value = JSON.stringify({ file: backup.file, bytes: backup.bytes, sha256: backup.sha256 });
    const changed = await this.sql.run(
      `INSERT INTO platform_settings (name, value, updated_by, updated_at) VALUES (?, ?, NULL, ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       WHERE platform_settings.updated_at < excluded.updated_at`,
      [LAST_BACKUP, value, backup.takenAt],
    );
    return changed.changes > 0;
  }
}
