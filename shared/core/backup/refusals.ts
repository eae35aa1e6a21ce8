// Why `ternmail backup` or `ternmail restore` refused: one closed set, which the CLI turns into its messages.
// A restore refuses before anything final is written; a backup leaves no file under the name it was given.
export type BackupRefusal =
  /** The data directory holds no database: nothing to back up (a wrong TERNMAIL_DATA_DIR, most likely). */
  | { kind: 'no_database'; dataDir: string }
  /** The store is on PostgreSQL: its backups are PostgreSQL's (pg_dump, pg_basebackup, pgBackRest), not an archive of the data dir. */
  | { kind: 'on_postgres' }
  /** Without the master key the sealed secrets (DKIM keys, webhook secrets) of a copy could never be opened. */
  | { kind: 'no_master_key'; path: string }
  /** The configured TLS certificate or key cannot be read. */
  | { kind: 'tls_unreadable'; path: string; reason: string }
  /** The directory the archive is to be written in does not exist. */
  | { kind: 'no_archive_dir'; path: string }
  /** A backup never replaces a file. */
  | { kind: 'archive_exists'; path: string }
  /** A restore goes only into a missing or empty directory. */
  | { kind: 'target_not_empty'; dataDir: string }
  /** Not a readable gzipped tar archive (missing, cut short, corrupt). */
  | { kind: 'archive_unreadable'; path: string; reason: string }
  /** An entry that would land outside the target, or is not a plain file or directory (a link, a device). */
  | { kind: 'unsafe_entry'; entry: string; reason: string }
  /** Not a Tern backup, or one of a format version this build does not read. */
  | { kind: 'unknown_format'; found: string }
  | { kind: 'bad_manifest'; reason: string }
  /** A file whose size or SHA-256 is not the manifest's. */
  | { kind: 'checksum_mismatch'; path: string }
  /** A file the manifest lists that the archive lacks. */
  | { kind: 'missing_file'; path: string }
  /** A file in the archive without a checksum in the manifest. */
  | { kind: 'unlisted_file'; path: string }
  /** A backup of a newer Tern, whose schema this build does not know. */
  | { kind: 'newer_schema'; schemaVersion: number; latest: number };

export type BackupOutcome<T> = { ok: true; value: T } | { ok: false; refusal: BackupRefusal };

export const succeeded = <T>(value: T): BackupOutcome<T> => ({ ok: true, value });
export const refusedBackup = <T = never>(refusal: BackupRefusal): BackupOutcome<T> => ({ ok: false, refusal });
