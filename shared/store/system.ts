// The system repository: what the operator's status and the readiness probe ask of the database itself,
// not of any record in it, and the platform's settings an operator makes from the dashboard.
import type { NewAuditEntry } from './audit-log.js';

/** Tern's own sender as an operator chose it on the dashboard. */
export interface StoredSystemSender {
  address: string;
  /** The operator who chose it; null once that user is removed. */
  setBy: number | null;
  /** ISO 8601 UTC. */
  at: string;
}

/** The last archive `ternmail backup` wrote, as it recorded it (a platform setting). */
export interface RecordedBackup {
  /** The archive's absolute path on the machine that took it. */
  file: string;
  bytes: number;
  sha256: string;
  /** ISO 8601 UTC: when the backup was taken. */
  takenAt: string;
}

/** The storage engine behind a store. */
export type StoreEngine = 'sqlite' | 'postgresql';

export interface SystemRepository {
  /** Which engine this store runs on (the defaults that differ by engine read it, e.g. idempotency.store). */
  readonly engine: StoreEngine;
  /** The newest migration applied: the schema version. A trivial read, so also the readiness probe's. */
  schemaVersion(): Promise<number>;
  /** The engine and its version as an operator reads it, e.g. "SQLite 3.45.1". */
  engineVersion(): Promise<string>;
  /** Tern's own sender as stored, or null when none was chosen. */
  systemSender(): Promise<StoredSystemSender | null>;
  /** Stores the sender and appends `audit(before)` in the same transaction; the sender before the change. */
  setSystemSender(sender: StoredSystemSender, audit: (before: StoredSystemSender | null) => NewAuditEntry): Promise<StoredSystemSender | null>;
  /** The last backup recorded, or null when none was. */
  lastBackup(): Promise<RecordedBackup | null>;
  /**
   * Records a backup as the last one, unless one taken later is recorded already (two backups finishing out of
   * order keep the newer): decided in the write. True when it is now the last one.
   */
  recordBackup(backup: RecordedBackup): Promise<boolean>;
}
