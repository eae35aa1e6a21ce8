// `ternmail store copy`: a stopped SQLite installation moved into an empty PostgreSQL database, for a platform
// outgrowing one machine. The store copies and checks (store/copy.ts); this use case names the installation (the
// configured data directory) and refuses a target that is not a PostgreSQL URL before anything is opened.
import type { Config } from '../config.js';
import { copySqliteToPostgres, type CopyOutcome } from '../store/copy.js';

export type { CopyOutcome, CopyRefusal, StoreCopied, TableCopied } from '../store/copy.js';

/** A target the copy goes to: a postgres:// (or postgresql://) URL naming a database. */
export function postgresUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return 'not a postgres:// URL';
  if (parsed.pathname.length <= 1) return 'the URL names no database (postgres://user@host:5432/DATABASE)';
  return null;
}

/** The URL as it may be printed: its password masked. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Copies the configured installation's database into the PostgreSQL database at `to` (a valid URL: see postgresUrlProblem). */
export function copyInstallation(config: Config, to: string): Promise<CopyOutcome> {
  return copySqliteToPostgres(config.dataDir, to);
}
