// `ternmail backup` and `ternmail restore`: the options read, the core's backup use cases called, and their
// outcome printed (one JSON object) or their refusal turned into a message (exit 1).
import type { Config } from '../config.js';
import { takeBackup } from '../core/backup/take-backup.js';
import { restoreBackup } from '../core/backup/restore-backup.js';
import type { BackupOutcome, BackupRefusal } from '../core/backup/refusals.js';

function refusalMessage(r: BackupRefusal): string {
  switch (r.kind) {
    case 'no_database':
      return `no database in ${r.dataDir}: is TERNMAIL_DATA_DIR (or dataDir) the data directory of a Tern that ran?`;
    case 'on_postgres':
      return 'the store is on PostgreSQL (TERNMAIL_DATABASE_URL): back it up with PostgreSQL\'s tools (pg_dump, or pg_basebackup / pgBackRest for point-in-time recovery) and keep a copy of keys/master.key from the data directory; see the README, "Running Tern on several machines"';
    case 'no_master_key':
      return `no master key at ${r.path}: a backup without it could not open the sealed secrets`;
    case 'tls_unreadable':
      return `the TLS file ${r.path} cannot be read: ${r.reason}`;
    case 'no_archive_dir':
      return `no directory ${r.path} to write the backup in`;
    case 'archive_exists':
      return `${r.path} exists already; a backup never replaces a file`;
    case 'target_not_empty':
      return `${r.dataDir} is not empty; restore into a new or empty directory`;
    case 'archive_unreadable':
      return `cannot read the archive ${r.path}: ${r.reason}`;
    case 'unsafe_entry':
      return `refused: the archive's entry ${JSON.stringify(r.entry)} is ${r.reason}; nothing was restored`;
    case 'unknown_format':
      return `refused: not a backup this Tern reads (${r.found}); nothing was restored`;
    case 'bad_manifest':
      return `refused: the archive's manifest is not valid (${r.reason}); nothing was restored`;
    case 'checksum_mismatch':
      return `refused: ${r.path} does not match its checksum in the manifest; nothing was restored`;
    case 'missing_file':
      return `refused: ${r.path} is listed in the manifest but missing from the archive; nothing was restored`;
    case 'unlisted_file':
      return `refused: ${r.path} is in the archive without a checksum in the manifest; nothing was restored`;
    case 'newer_schema':
      return `refused: the backup's schema version ${r.schemaVersion} is newer than this Tern's (${r.latest}); restore it with the Tern that made it, or a newer one`;
  }
}

const valueOf = <T>(outcome: BackupOutcome<T>): T => {
  if (!outcome.ok) throw new Error(refusalMessage(outcome.refusal));
  return outcome.value;
};

export async function backupCommand(config: Config, to: string): Promise<unknown> {
  const written = valueOf(await takeBackup(config, to));
  return { file: written.file, bytes: written.bytes, sha256: written.sha256, data_dir: config.dataDir, ...written.manifest, recorded: written.recorded };
}

export async function restoreCommand(from: string, dataDir: string): Promise<unknown> {
  const restored = valueOf(await restoreBackup(from, dataDir));
  const { tls, ...about } = restored.manifest;
  return {
    data_dir: restored.dataDir,
    files: restored.files,
    bytes: restored.bytes,
    ...about,
    // The pair is back in the data dir, where the MTA looks when TERNMAIL_TLS_CERT and TERNMAIL_TLS_KEY are unset.
    tls: tls && restored.tls && { ...tls, restored_as: { cert_path: restored.tls.cert, key_path: restored.tls.key } },
  };
}
