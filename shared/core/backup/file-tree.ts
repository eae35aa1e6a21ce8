// The files of a backup's staging directory: walked, measured and digested, copied in, and given the modes of
// a data directory's secrets (0600 files, 0700 directories), and flushed to disk.
import { createHash } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, stat } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface TreeEntry {
  /** The path below the tree's root, '/'-separated. */
  path: string;
  kind: 'file' | 'directory' | 'other';
}

/** Every entry below `root`, depth first; links and devices come out as 'other' (never followed). */
export async function walk(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      const path = relative(root, full).split(sep).join(posix.sep);
      if (entry.isDirectory()) {
        out.push({ path, kind: 'directory' });
        await visit(full);
      } else out.push({ path, kind: entry.isFile() ? 'file' : 'other' });
    }
  };
  await visit(root);
  return out;
}

export interface FileDigest {
  size: number;
  sha256: string;
}

export async function digest(file: string): Promise<FileDigest> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return { size: (await stat(file)).size, sha256: hash.digest('hex') };
}

/** Copies `from` to `to`, creating its directory; false when `from` is gone (a spool file applied meanwhile). */
export async function copyIn(from: string, to: string): Promise<boolean> {
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  try {
    await copyFile(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Files 0600 and directories 0700 below `root` and `root` itself: they hold the master key and TLS private key. */
export async function restrictModes(root: string): Promise<void> {
  await chmod(root, 0o700);
  for (const entry of await walk(root)) await chmod(join(root, entry.path), entry.kind === 'directory' ? 0o700 : 0o600);
}

/** Flushes a file, or a directory's entries (a new name in it), to disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
