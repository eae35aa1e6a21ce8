// The backup archive's format: a gzipped tar holding manifest.json and, under data/, the files of a data
// directory; the manifest says which Tern wrote it and gives each file's size and SHA-256. The rules a
// restore applies to an archive it did not write (entry paths, entry types, the manifest) are here too.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { refusedBackup, succeeded, type BackupOutcome } from './refusals.js';

export const FORMAT = 'tern-backup';
/** Raised when the layout or the manifest changes in a way an older restore would misread. */
export const FORMAT_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';
/** The archive's folder for the data directory's files; manifest paths are relative to it. */
export const DATA_ENTRY = 'data';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

const ManifestSchema = Type.Object(
  {
    format: Type.Literal(FORMAT),
    format_version: Type.Literal(FORMAT_VERSION),
    tern_version: Type.String(),
    schema_version: Type.Integer({ minimum: 0 }),
    created_at: Type.String(),
    /** The TLS pair the MTA served, where it was read from; restored as the data dir's tls/ pair. */
    tls: Type.Union([
      Type.Object(
        { source: Type.Union([Type.Literal('configured'), Type.Literal('self-signed')]), cert_path: Type.String(), key_path: Type.String() },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer({ minimum: 0 }), sha256: Sha256 }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export type Manifest = Static<typeof ManifestSchema>;
export type ManifestFile = Manifest['files'][number];

/**
 * Why a relative path could leave the directory it is resolved in, or null when it cannot: no absolute path,
 * no `..` (nor `.` or empty) segment, no backslash (a separator elsewhere), no NUL.
 */
export function pathProblem(path: string): string | null {
  if (path === '') return 'an empty path';
  if (path.startsWith('/')) return 'an absolute path';
  if (/[\\\0]/.test(path)) return 'a backslash or NUL in the path';
  if (path.split('/').some((segment) => segment === '..')) return 'a path that climbs out of the target (..)';
  if (path.split('/').some((segment) => segment === '' || segment === '.')) return 'a path with an empty or "." segment';
  return null;
}

/** Why an archive entry is refused, or null: only the manifest and plain files and directories under data/. */
export function entryProblem(path: string, type: string): string | null {
  const isDirectory = type === 'Directory';
  // Directories come with a trailing slash; nothing else may have one.
  const name = isDirectory && path.endsWith('/') ? path.slice(0, -1) : path;
  const problem = pathProblem(name);
  if (problem) return problem;
  if (type !== 'File' && !isDirectory) return `a ${type} entry (only plain files and directories are restored)`;
  if (name === MANIFEST_ENTRY) return isDirectory ? 'the manifest is a directory' : null;
  if (name === DATA_ENTRY) return isDirectory ? null : `${DATA_ENTRY} is not a directory`;
  if (!name.startsWith(`${DATA_ENTRY}/`)) return `outside ${DATA_ENTRY}/`;
  return null;
}

/** The manifest of an archive, checked: format and version first (an unknown one is named), then its shape. */
export function parseManifest(text: string): BackupOutcome<Manifest> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refusedBackup({ kind: 'bad_manifest', reason: `${MANIFEST_ENTRY} is not JSON` });
  }
  const head = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  if (head.format !== FORMAT) return refusedBackup({ kind: 'unknown_format', found: `format ${JSON.stringify(head.format ?? null)}` });
  if (head.format_version !== FORMAT_VERSION) return refusedBackup({ kind: 'unknown_format', found: `format_version ${JSON.stringify(head.format_version ?? null)}` });
  if (!Value.Check(ManifestSchema, json)) {
    const first = Value.Errors(ManifestSchema, json).First();
    return refusedBackup({ kind: 'bad_manifest', reason: first ? `${first.path || '/'}: ${first.message}` : 'unexpected shape' });
  }
  return filesProblem(json.files) ?? succeeded(json);
}

function filesProblem(files: readonly ManifestFile[]): BackupOutcome<never> | null {
  const seen = new Set<string>();
  for (const file of files) {
    const problem = pathProblem(file.path);
    if (problem) return refusedBackup({ kind: 'unsafe_entry', entry: file.path, reason: `the manifest names ${problem}` });
    if (seen.has(file.path)) return refusedBackup({ kind: 'bad_manifest', reason: `${file.path} is listed twice` });
    seen.add(file.path);
  }
  return null;
}
