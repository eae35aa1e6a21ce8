// node-sqlite3's online backup (Database#backup, lib/sqlite3.js and src/backup.cc), which its own type
// definitions leave out; store/sqlite/online-backup.ts is the one user.
import 'sqlite3';

declare module 'sqlite3' {
  interface Database {
    /** Starts copying this database's main schema into `filename` (created if missing). */
    backup(filename: string, callback?: (err: Error | null) => void): Backup;
  }

  interface Backup {
    /** Copies up to `pages` pages (-1: all that are left) in one step; `done` is true once nothing is left. */
    step(pages: number, callback?: (err: (Error & { errno?: number; code?: string }) | null, done?: boolean) => void): Backup;
    finish(callback?: (err: Error | null) => void): void;
    readonly completed: boolean;
    readonly failed: boolean;
    /** Error codes after which a step may be tried again (SQLITE_BUSY and SQLITE_LOCKED by default). */
    retryErrors: number[];
  }
}
