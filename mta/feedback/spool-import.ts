// Reports recorded by a release that kept their bodies in a file spool (data/spool-inbound/<xx>/<id>.eml, the
// body fsync'd before its row committed): at MTA start, before the report worker and the MX listener, each file's
// body is given to its waiting report in the store, then the file is removed; once the spool is empty the
// directory goes. A file whose report is not waiting (applied already, its file left by a crash before the
// unlink) or has no row (cut short by a crash before its row committed: never acknowledged) is removed as
// well. Waiting reports still without a body after that have lost it (their file is gone): they are dropped,
// as the old worker dropped a report whose file was missing. A machine without a spool directory decides
// nothing about them: with several MTAs, the spool (of the one installation that had one) may be on another.
import { readdir, readFile, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Runtime } from '../../shared/runtime/runtime.js';
import type { ReportVerdict } from '../../shared/domain/feedback.js';
import { metrics } from '../../shared/metrics.js';

/** What an import did: bodies given to their reports, files removed without a report waiting, reports dropped. */
export interface SpoolImported {
  imported: number;
  orphans: number;
  dropped: number;
  /** Whether the spool directory is gone (false when something other than spool files is left in it). */
  removed: boolean;
}

/** The verdict of a report whose body is nowhere: the same words as the worker that read the spool used. */
export const BODY_MISSING: ReportVerdict = { state: 'dropped', kind: 'unknown', detail: 'the report body is missing from the spool' };

const SPOOL_FILE = /^[0-9a-z]+\.eml$/;

/** The spool's files, as [sub-directory, file name]: one level of two-character directories, `<id>.eml` in each. */
async function spoolFiles(dir: string): Promise<Array<[string, string]>> {
  const files: Array<[string, string]> = [];
  for (const folder of await readdir(dir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const name of await readdir(join(dir, folder.name))) if (SPOOL_FILE.test(name)) files.push([folder.name, name]);
  }
  return files;
}

/** Removes a directory if it is empty; false when something is left in it. */
async function removeIfEmpty(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Imports the spool at `dir` into the store; null when there is none (a new installation, or one imported
 * already). A file is removed only after its body is committed, so an import cut short is simply run again.
 */
export async function importSpool(feedback: Runtime['store']['feedback'], dir: string): Promise<SpoolImported | null> {
  let files: Array<[string, string]>;
  try {
    files = await spoolFiles(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const done: SpoolImported = { imported: 0, orphans: 0, dropped: 0, removed: false };
  for (const [folder, name] of files) {
    const path = join(dir, folder, name);
    if (await feedback.attachReportBody(name.slice(0, -'.eml'.length), await readFile(path))) done.imported++;
    else done.orphans++;
    await unlink(path);
  }
  done.dropped = await feedback.finishReportsWithoutBody(BODY_MISSING);
  if (done.dropped) metrics.inboundReports.inc({ kind: BODY_MISSING.kind, state: BODY_MISSING.state }, done.dropped);
  // The old spool made its 256 sub-directories as needed: every empty one goes, then the spool itself.
  for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await removeIfEmpty(join(dir, entry.name));
  done.removed = await removeIfEmpty(dir);
  return done;
}
