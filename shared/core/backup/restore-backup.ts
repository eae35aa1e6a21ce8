// `ternmail restore`: a backup archive back into a new data directory. Nothing final is written until the
// whole archive is checked: its entries are listed and refused if one could land outside the target or is
// not a plain file or directory, then it is unpacked into a staging directory beside the target, each file
// checked against the manifest's size and SHA-256, given mode 0600 (directories 0700), and only then is the
// staged data directory renamed into place.
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { extract, list } from 'tar';
import { selfSignedTlsDir, tlsPairIn } from '../../data-dir.js';
import { databaseBackup } from '../../store/index.js';
import { DATA_ENTRY, entryProblem, MANIFEST_ENTRY, parseManifest, type Manifest } from './archive-format.js';
import { digest, restrictModes, syncPath, walk } from './file-tree.js';
import { refusedBackup, succeeded, type BackupOutcome } from './refusals.js';

export interface Restored {
  dataDir: string;
  files: number;
  bytes: number;
  manifest: Omit<Manifest, 'files'>;
  /** Where the backed-up TLS pair now is: where the MTA looks when no pair is configured. */
  tls: { cert: string; key: string } | null;
}

/** A target that does not exist, or is an empty directory, may be restored into. */
async function targetInUse(dataDir: string): Promise<boolean> {
  if (!existsSync(dataDir)) return false;
  return !statSync(dataDir).isDirectory() || (await readdir(dataDir)).length > 0;
}

/** Every entry's path and type, read before anything is unpacked; the first refused one refuses the archive. */
async function checkEntries(file: string): Promise<BackupOutcome<null>> {
  const seen = new Set<string>();
  let refusal: BackupOutcome<null> | null = null;
  try {
    await list({
      file,
      strict: true,
      onReadEntry: (entry) => {
        if (refusal) return;
        const problem = entryProblem(entry.path, entry.type);
        if (problem) refusal = refusedBackup({ kind: 'unsafe_entry', entry: entry.path, reason: problem });
        else if (seen.has(entry.path)) refusal = refusedBackup({ kind: 'unsafe_entry', entry: entry.path, reason: 'the entry appears twice' });
        seen.add(entry.path);
      },
    });
  } catch (err) {
    return refusedBackup({ kind: 'archive_unreadable', path: file, reason: (err as Error).message });
  }
  if (refusal) return refusal;
  return seen.has(MANIFEST_ENTRY) ? succeeded(null) : refusedBackup({ kind: 'bad_manifest', reason: `the archive has no ${MANIFEST_ENTRY}` });
}

/** The staged files against the manifest: the same set of paths, each with its size and SHA-256. */
async function verify(staged: string, manifest: Manifest): Promise<BackupOutcome<null>> {
  const present = existsSync(staged) ? await walk(staged) : [];
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  for (const entry of present) {
    if (entry.kind === 'other') return refusedBackup({ kind: 'unsafe_entry', entry: `${DATA_ENTRY}/${entry.path}`, reason: 'not a plain file or directory' });
    if (entry.kind === 'file' && !listed.has(entry.path)) return refusedBackup({ kind: 'unlisted_file', path: entry.path });
  }
  for (const file of manifest.files) {
    const path = join(staged, file.path);
    if (!existsSync(path) || !statSync(path).isFile()) return refusedBackup({ kind: 'missing_file', path: file.path });
    const actual = await digest(path);
    if (actual.size !== file.size || actual.sha256 !== file.sha256) return refusedBackup({ kind: 'checksum_mismatch', path: file.path });
  }
  return succeeded(null);
}

/** Unpacks into `staging` and checks everything there. */
async function unpackAndVerify(file: string, staging: string): Promise<BackupOutcome<Manifest>> {
  const entries = await checkEntries(file);
  if (!entries.ok) return entries;
  try {
    // The same rule again as a filter: what was listed is what is unpacked, even if the file changed since.
    await extract({ file, cwd: staging, strict: true, preserveOwner: false, filter: (path, entry) => 'type' in entry && entryProblem(path, entry.type) === null });
  } catch (err) {
    return refusedBackup({ kind: 'archive_unreadable', path: file, reason: (err as Error).message });
  }
  const manifest = parseManifest(await readFile(join(staging, MANIFEST_ENTRY), 'utf8'));
  if (!manifest.ok) return manifest;
  if (manifest.value.schema_version > databaseBackup.latestSchemaVersion) {
    return refusedBackup({ kind: 'newer_schema', schemaVersion: manifest.value.schema_version, latest: databaseBackup.latestSchemaVersion });
  }
  const checked = await verify(join(staging, DATA_ENTRY), manifest.value);
  return checked.ok ? manifest : checked;
}

export async function restoreBackup(from: string, dataDir: string): Promise<BackupOutcome<Restored>> {
  const file = resolve(from);
  const target = resolve(dataDir);
  if (await targetInUse(target)) return refusedBackup({ kind: 'target_not_empty', dataDir: target });
  if (!existsSync(file)) return refusedBackup({ kind: 'archive_unreadable', path: file, reason: 'no such file' });
  await mkdir(dirname(target), { recursive: true });
  const staging = await mkdtemp(join(dirname(target), `.${basename(target)}.restore-`));
  try {
    const manifest = await unpackAndVerify(file, staging);
    if (!manifest.ok) return manifest;
    const staged = join(staging, DATA_ENTRY);
    await mkdir(staged, { recursive: true });
    await restrictModes(staged);
    try {
      // rename(2) replaces an empty directory, and fails on one that something filled meanwhile.
      await rename(staged, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return refusedBackup({ kind: 'target_not_empty', dataDir: target });
      throw err;
    }
    await syncPath(dirname(target));
    const { files, ...about } = manifest.value;
    const tls = about.tls && tlsPairIn(selfSignedTlsDir(target));
    return succeeded({ dataDir: target, files: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0), manifest: about, tls });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
