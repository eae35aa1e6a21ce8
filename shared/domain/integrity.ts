// The integrity scan of Tern's own installed files: what a scan found against the build's manifest, and the
// scan's state (turned on by an operator, daily or not, the last result).

/** A scan's findings, paths relative to the installation's root, each list sorted. */
export interface ScanFindings {
  /** In the manifest, with other content now. */
  modified: string[];
  /** In the manifest, gone. */
  missing: string[];
  /** Under a covered root, not in the manifest. */
  unexpected: string[];
}

export interface ScanResult extends ScanFindings {
  /** ISO 8601 UTC. */
  scannedAt: string;
  /** When the manifest was written (the build). */
  manifestBuiltAt: string;
  /** Findings left out because an operator ignores their path. */
  ignored: string[];
}

export interface ScanState {
  /** When an operator turned the scan on; null: off. */
  registeredAt: string | null;
  /** Whether it runs every day (and mails the operators when its findings change). */
  daily: boolean;
  nextScanAt: string | null;
  last: ScanResult | null;
}

export const SCAN_OFF: ScanState = { registeredAt: null, daily: false, nextScanAt: null, last: null };

/** Whether two scans found the same (what decides a mail). */
export const sameFindings = (a: ScanFindings | null, b: ScanFindings): boolean =>
  a !== null && JSON.stringify([a.modified, a.missing, a.unexpected]) === JSON.stringify([b.modified, b.missing, b.unexpected]);
