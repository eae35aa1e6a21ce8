// What a backup needs of the store's engine: a consistent copy of the live database, taken while the API and
// the MTA go on writing, and the schema version of such a copy. The SQLite engine's is store/sqlite/online-backup.ts.

/** A copy of the database, as the engine took it. */
export interface DatabaseCopy {
  /** The newest migration the copy holds. */
  schemaVersion: number;
}

export interface DatabaseBackup {
  /** The database's file name inside a data directory (what a restore puts back). */
  readonly fileName: string;
  /** The newest schema version this build knows: a copy of a newer one is not restored by it. */
  readonly latestSchemaVersion: number;
  /**
   * Copies the database of `dataDir` into the new file `target`, as one snapshot of committed data, and checks
   * the copy's integrity. Throws when there is no database, or the copy is not sound.
   */
  copy(dataDir: string, target: string): Promise<DatabaseCopy>;
}
