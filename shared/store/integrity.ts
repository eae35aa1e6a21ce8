// The integrity scan's repository: its one state row (on or off, daily or not, the next run, the last result)
// and the paths operators ignore. Every operator's change is written with its audit entry in one transaction; the
// daily run is claimed in one UPDATE, so of several API processes one runs it.
import type { ScanResult, ScanState } from '../domain/integrity.js';
import type { NewAuditEntry } from './audit-log.js';

export interface IntegrityRepository {
  state(): Promise<ScanState | undefined>;
  /** Replaces the settings part (on since, daily, next run) and appends `audit`; the result is kept unless `clearResult`. */
  putSettings(s: Pick<ScanState, 'registeredAt' | 'daily' | 'nextScanAt'>, at: string, audit: NewAuditEntry, clearResult?: boolean): Promise<void>;
  /** Stores a scan's result (the state row must exist: the scan is on). */
  recordResult(result: ScanResult): Promise<void>;
  /** Takes the daily run due at `now`, moving the next run to `next`; false when none is due or another took it. */
  claimDaily(now: string, next: string): Promise<boolean>;
  ignores(): Promise<string[]>;
  /** Ignores a path, or stops ignoring it when it was; which it now is. */
  toggleIgnore(path: string, at: string, audit: (nowIgnored: boolean) => NewAuditEntry): Promise<boolean>;
  /** Stops ignoring every path; how many were. */
  clearIgnores(audit: (count: number) => NewAuditEntry): Promise<number>;
}
