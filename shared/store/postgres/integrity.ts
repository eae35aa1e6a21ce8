// The integrity scan's state and ignored paths in PostgreSQL: as SQLite's (store/sqlite/integrity.ts). Of two
// toggles of one path at once, the second waits on the first's row (or its unique key) and then sees it.
import type { PgSql } from './sql.js';
import type { ScanResult, ScanState } from '../../domain/integrity.js';
import type { IntegrityRepository } from '../integrity.js';
import type { NewAuditEntry } from '../audit-log.js';
import { PgAuditLogStore } from './audit-log.js';
import { decodePath, decodeState, STATE_COLUMNS } from '../integrity-row.js';

export class PgIntegrityStore implements IntegrityRepository {
  constructor(private readonly sql: PgSql) {}

  async state(): Promise<ScanState | undefined> {
    const row = await this.sql.get(`SELECT ${STATE_COLUMNS} FROM integrity_scan WHERE id = 1`);
    return row && decodeState(row);
  }

  async putSettings(s: Pick<ScanState, 'registeredAt' | 'daily' | 'nextScanAt'>, at: string, audit: NewAuditEntry, clearResult = false): Promise<void> {
    await this.sql.tx(async (q) => {
      await q.run(
        `INSERT INTO integrity_scan (id, registered_at, daily, next_scan_at, updated_at) VALUES (1, $1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET registered_at = excluded.registered_at, daily = excluded.daily, next_scan_at = excluded.next_scan_at,
           updated_at = excluded.updated_at, last_result = CASE WHEN $5::int = 1 THEN NULL ELSE integrity_scan.last_result END`,
        [s.registeredAt, s.daily ? 1 : 0, s.nextScanAt, at, clearResult ? 1 : 0],
      );
      await PgAuditLogStore.insert(q, audit);
    });
  }

  async recordResult(result: ScanResult): Promise<void> {
    await this.sql.run('UPDATE integrity_scan SET last_result = $1, updated_at = $2 WHERE id = 1', [JSON.stringify(result), result.scannedAt]);
  }

  async claimDaily(now: string, next: string): Promise<boolean> {
    const claimed = await this.sql.run('UPDATE integrity_scan SET next_scan_at = $1 WHERE id = 1 AND daily = 1 AND registered_at IS NOT NULL AND next_scan_at <= $2', [
      next,
      now,
    ]);
    return claimed.changes === 1;
  }

  async ignores(): Promise<string[]> {
    return (await this.sql.all('SELECT path FROM integrity_ignores ORDER BY path')).map(decodePath);
  }

  async toggleIgnore(path: string, at: string, audit: (nowIgnored: boolean) => NewAuditEntry): Promise<boolean> {
    return this.sql.tx(async (q) => {
      const removed = (await q.run('DELETE FROM integrity_ignores WHERE path = $1', [path])).changes === 1;
      if (!removed) await q.run('INSERT INTO integrity_ignores (path, added_at) VALUES ($1, $2) ON CONFLICT (path) DO NOTHING', [path, at]);
      await PgAuditLogStore.insert(q, audit(!removed));
      return !removed;
    });
  }

  async clearIgnores(audit: (count: number) => NewAuditEntry): Promise<number> {
    return this.sql.tx(async (q) => {
      const count = (await q.run('DELETE FROM integrity_ignores')).changes;
      await PgAuditLogStore.insert(q, audit(count));
      return count;
    });
  }
}
