// The system repository: what the operator's status and the readiness probe ask of the database itself,
// not of any record in it.

export interface SystemRepository {
  /** The newest migration applied: the schema version. A trivial read, so also the readiness probe's. */
  schemaVersion(): Promise<number>;
  /** The engine and its version as an operator reads it, e.g. "SQLite 3.45.1". */
  engineVersion(): Promise<string>;
}
