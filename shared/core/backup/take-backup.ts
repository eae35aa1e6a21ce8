// `ternmail backup`: a consistent copy of a running Tern's data directory in one archive. The files are
// gathered in a staging directory beside the archive (the database through the store's online backup, the
// master key, the TLS pair the MTA serves, an inbound report spool an earlier release left), digested into the manifest, packed,
// and the archive written under a temporary name and linked into place: a backup cut short never has the
// final name, and an existing file is never replaced. Once the archive has its name, the backup is recorded in the
// store (a platform setting) as the last one taken: site health's backups check reads it (core/site-health.ts).
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { access, constants, link, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create as createTar } from 'tar';
import type { Config } from '../../config.js';
import { inboundSpoolDir, masterKeyFile, selfSignedTlsDir, tlsPairIn } from '../../data-dir.js';
import { databaseBackup, openStore } from '../../store/index.js';
import { DATA_ENTRY, FORMAT, FORMAT_VERSION, MANIFEST_ENTRY, type Manifest } from './archive-format.js';
import { ternVersion } from '../../version.js';
import type { RecordedBackup } from '../../store/system.js';
import { copyIn, digest, syncPath, walk } from './file-tree.js';
import { refusedBackup, succeeded, type BackupOutcome } from './refusals.js';

/** What a backup wrote: the archive and its manifest, less the list of files. */
export interface BackupWritten {
  file: string;
  bytes: number;
  sha256: string;
  manifest: Omit<Manifest, 'files'> & { files: number; data_bytes: number };
  /** Whether the store now names it as the last backup (false: the store could not be written; the archive is good). */
  recorded: boolean;
}

type TlsPair = { source: 'configured' | 'self-signed'; cert: string; key: string; ec: { cert: string; key: string } | null };

/**
 * The pair the MTA serves: the configured one, else the self-signed one made on first start (if it was), with
 * the ECDSA pair made beside it (shared/tls.ts), so that a restored installation answers with the same certificates.
 */
function servedTls(config: Config): TlsPair | null {
  if (config.tls.cert && config.tls.key) return { source: 'configured', cert: config.tls.cert, key: config.tls.key, ec: null };
  const dir = selfSignedTlsDir(config.dataDir);
  const pair = tlsPairIn(dir);
  const ec = tlsPairIn(join(dir, 'ec'));
  if (!existsSync(pair.cert) || !existsSync(pair.key)) return null;
  return { source: 'self-signed', ...pair, ec: existsSync(ec.cert) && existsSync(ec.key) ? ec : null };
}

async function unreadable(path: string): Promise<string | null> {
  try {
    await access(path, constants.R_OK);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What must be there before anything is copied. */
async function preconditions(config: Config, to: string, tls: TlsPair | null): Promise<BackupOutcome<null>> {
  if (config.databaseUrl !== null) return refusedBackup({ kind: 'on_postgres' });
  if (!existsSync(join(config.dataDir, databaseBackup.fileName))) return refusedBackup({ kind: 'no_database', dataDir: config.dataDir });
  if (!existsSync(masterKeyFile(config.dataDir))) return refusedBackup({ kind: 'no_master_key', path: masterKeyFile(config.dataDir) });
  if (!existsSync(dirname(to))) return refusedBackup({ kind: 'no_archive_dir', path: dirname(to) });
  if (existsSync(to)) return refusedBackup({ kind: 'archive_exists', path: to });
  for (const path of tls ? [tls.cert, tls.key, ...(tls.ec ? [tls.ec.cert, tls.ec.key] : [])] : []) {
    const reason = await unreadable(path);
    if (reason) return refusedBackup({ kind: 'tls_unreadable', path, reason });
  }
  return succeeded(null);
}

/** Copies the spool's files not copied yet; returns how many it copied. */
async function copySpool(dataDir: string, staged: string, copied: Set<string>): Promise<number> {
  const spool = inboundSpoolDir(dataDir);
  if (!existsSync(spool)) return 0;
  let count = 0;
  for (const entry of await walk(spool)) {
    if (entry.kind !== 'file' || copied.has(entry.path)) continue;
    if (await copyIn(join(spool, entry.path), join(inboundSpoolDir(staged), entry.path))) count++;
    copied.add(entry.path);
  }
  return count;
}

/**
 * The data files, in the staging directory's data/. Report bodies are in the database; a spool left by a release
 * before schema 36 (not imported yet: the MTA has not started since the upgrade) is copied before and after the
 * database: its files are removed only after their bodies are committed to the database, so every report
 * waiting without a body in the database's snapshot has its file copied.
 */
async function stageData(config: Config, staged: string, tls: TlsPair | null): Promise<number> {
  await mkdir(staged, { mode: 0o700 });
  const copied = new Set<string>();
  await copySpool(config.dataDir, staged, copied);
  const { schemaVersion } = await databaseBackup.copy(config.dataDir, join(staged, databaseBackup.fileName));
  await copySpool(config.dataDir, staged, copied);
  // The staging directory is laid out as a data directory: its paths come from the same names.
  await copyIn(masterKeyFile(config.dataDir), masterKeyFile(staged));
  if (tls) {
    const pair = tlsPairIn(selfSignedTlsDir(staged));
    await copyIn(tls.cert, pair.cert);
    await copyIn(tls.key, pair.key);
    if (tls.ec) {
      const ec = tlsPairIn(join(selfSignedTlsDir(staged), 'ec'));
      await copyIn(tls.ec.cert, ec.cert);
      await copyIn(tls.ec.key, ec.key);
    }
  }
  return schemaVersion;
}

async function describe(staged: string, schemaVersion: number, tls: TlsPair | null, now: Date): Promise<Manifest> {
  const files: Manifest['files'] = [];
  for (const entry of await walk(staged)) {
    if (entry.kind === 'file') files.push({ path: entry.path, ...(await digest(join(staged, entry.path))) });
  }
  return {
    format: FORMAT,
    format_version: FORMAT_VERSION,
    tern_version: ternVersion(),
    schema_version: schemaVersion,
    created_at: now.toISOString(),
    tls: tls && { source: tls.source, cert_path: resolve(tls.cert), key_path: resolve(tls.key) },
    files,
  };
}

/** Packs the staging directory into `temp` (mode 0600: it holds the keys), flushed to disk. */
async function pack(staging: string, temp: string): Promise<void> {
  const out = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
  await pipeline(createTar({ gzip: true, portable: true, cwd: staging }, [MANIFEST_ENTRY, DATA_ENTRY]), out);
  await syncPath(temp);
}

/** Gives `temp` the name `to` unless something has it already (link refuses to replace), and syncs the directory. */
async function publish(temp: string, to: string): Promise<boolean> {
  try {
    await link(temp, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  await syncPath(dirname(to));
  return true;
}

/**
 * Records the archive as the last backup taken. The archive is good whatever happens here, so a store that cannot
 * be written is reported (false) rather than thrown: the backup is not taken again under another name.
 */
async function recordTaken(config: Config, backup: RecordedBackup): Promise<boolean> {
  try {
    const store = await openStore(config.dataDir, config.databaseUrl);
    try {
      await store.system.recordBackup(backup);
      return true;
    } finally {
      await store.close();
    }
  } catch {
    return false;
  }
}

export async function takeBackup(config: Config, target: string, now = new Date()): Promise<BackupOutcome<BackupWritten>> {
  const to = resolve(target);
  const tls = servedTls(config);
  const ready = await preconditions(config, to, tls);
  if (!ready.ok) return ready;
  const staging = await mkdtemp(join(dirname(to), `.${basename(to)}.staging-`));
  const temp = join(dirname(to), `.${basename(to)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    const staged = join(staging, DATA_ENTRY);
    const schemaVersion = await stageData(config, staged, tls);
    const manifest = await describe(staged, schemaVersion, tls, now);
    await writeFile(join(staging, MANIFEST_ENTRY), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    await pack(staging, temp);
    if (!(await publish(temp, to))) return refusedBackup({ kind: 'archive_exists', path: to });
    const archive = await digest(to);
    const { files, ...about } = manifest;
    const dataBytes = files.reduce((sum, f) => sum + f.size, 0);
    const recorded = await recordTaken(config, { file: to, bytes: archive.size, sha256: archive.sha256, takenAt: now.toISOString() });
    return succeeded({ file: to, bytes: archive.size, sha256: archive.sha256, manifest: { ...about, files: files.length, data_bytes: dataBytes }, recorded });
  } finally {
    await rm(staging, { recursive: true, force: true });
    await unlink(temp).catch(() => undefined);
  }
}
