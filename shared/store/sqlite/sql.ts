// The narrow SQL surface the SQLite repositories use. Another engine (PostgreSQL, when one VM is outgrown)
// implements the repository interfaces of store/ over its own driver, not this.
import sqlite3 from 'sqlite3';

export type SqlValue = string | number | bigint | null | Buffer;
export type Params = readonly SqlValue[];
export type Row = Record<string, unknown>;

export interface RunResult {
  changes: number;
  lastId: number;
}

export interface Queryable {
  get<T extends Row>(sql: string, params?: Params): Promise<T | undefined>;
  all<T extends Row>(sql: string, params?: Params): Promise<T[]>;
  run(sql: string, params?: Params): Promise<RunResult>;
  /** Runs a script of several statements (migrations). */
  exec(script: string): Promise<void>;
}

export interface Sql extends Queryable {
  /**
   * Runs one writing statement that ends with RETURNING (an insert giving back what it created, an update what
   * it changed) on the writer, as its own transaction, and gives its rows: a read through a reader afterwards
   * would be a second round trip, and may see an older snapshot.
   */
  returning<T extends Row>(sql: string, params?: Params): Promise<T[]>;
  /** Runs `work` in one write transaction; transactions are serialised within a process. */
  tx<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Like tx, but shares one transaction (and so one commit and fsync) with other grouped work submitted
   * meanwhile; each work runs in its own savepoint, so one failing undoes only itself (group commit).
   */
  grouped<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Prepared statements kept per connection: preparing one per call was a large share of the main thread's time. */
const MAX_STATEMENTS = 200;

interface KeptStatement {
  prepared: Promise<sqlite3.Statement>;
  /** Calls under way; an evicted statement is finalized only once none is left. */
  users: number;
  evicted: boolean;
}

class Connection implements Queryable {
  private readonly statements = new Map<string, KeptStatement>();

  constructor(private readonly db: sqlite3.Database) {}

  static open(file: string, mode: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(new Connection(db))));
    });
  }

  /**
   * The first row. Run with `all`, not node-sqlite3's `get`: `get` leaves its statement open until a later
   * finalize, so the connection keeps an old read snapshot and may miss a commit made just before. `all`
   * and `run` step a statement to its end and reset it, so a kept statement holds no snapshot.
   */
  async get<T extends Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  all<T extends Row>(sql: string, params: Params = []): Promise<T[]> {
    return this.using(sql, (statement) => new Promise((resolve, reject) => statement.all(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)))));
  }

  run(sql: string, params: Params = []): Promise<RunResult> {
    return this.using(
      sql,
      (statement) =>
        new Promise((resolve, reject) =>
          statement.run(params, function (this: sqlite3.RunResult, err: Error | null) {
            if (err) reject(err);
            else resolve({ changes: this.changes, lastId: this.lastID });
          }),
        ),
    );
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    const kept = [...this.statements.values()];
    this.statements.clear();
    for (const k of kept) {
      const statement = await k.prepared.catch(() => null);
      if (statement) await new Promise<void>((resolve) => statement.finalize(() => resolve()));
    }
    await new Promise<void>((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }

  busyTimeout(ms: number): void {
    this.db.configure('busyTimeout', ms);
  }

  /** Runs `call` with the statement prepared once for `sql`. */
  private async using<T>(sql: string, call: (statement: sqlite3.Statement) => Promise<T>): Promise<T> {
    const kept = this.keep(sql);
    kept.users++;
    try {
      return await call(await kept.prepared);
    } finally {
      kept.users--;
      if (kept.evicted && kept.users === 0)
        void kept.prepared.then(
          (st) => st.finalize(),
          () => undefined,
        );
    }
  }

  /** The kept statement for `sql`, most recently used last; the least recently used go past the cap. */
  private keep(sql: string): KeptStatement {
    let kept = this.statements.get(sql);
    if (kept) {
      this.statements.delete(sql);
    } else {
      const prepared = new Promise<sqlite3.Statement>((resolve, reject) => {
        const statement = this.db.prepare(sql, (err: Error | null) => (err ? reject(err) : resolve(statement)));
      });
      kept = { prepared, users: 0, evicted: false };
      // A statement that does not prepare is not kept; the caller hears why.
      const failed = kept;
      prepared.catch(() => this.statements.get(sql) === failed && this.statements.delete(sql));
    }
    this.statements.set(sql, kept);
    for (const [oldest, old] of this.statements) {
      if (this.statements.size <= MAX_STATEMENTS) break;
      this.statements.delete(oldest);
      old.evicted = true;
      if (old.users === 0)
        void old.prepared.then(
          (st) => st.finalize(),
          () => undefined,
        );
    }
    return kept;
  }
}

/**
 * One writer connection (transactions queued in order) and a few readers that see only committed data. A
 * connection runs one statement at a time, so reads are spread over several to run side by side.
 */
const MAX_GROUP = 200;
const READERS = 4;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const settle = (item: GroupedWork, outcome: Outcome): void => (outcome.ok ? item.resolve(outcome.value) : item.reject(outcome.error));

interface GroupedWork {
  work: (q: Queryable) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

class SqliteSql implements Sql {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly waiting: GroupedWork[] = [];

  constructor(
    private readonly writer: Connection,
    private readonly readers: readonly Connection[],
    private readonly busyTimeoutMs: number,
  ) {}

  private next = 0;

  private reader(): Connection {
    this.next = (this.next + 1) % this.readers.length;
    return this.readers[this.next]!;
  }

  get<T extends Row>(sql: string, params?: Params): Promise<T | undefined> {
    return this.reader().get<T>(sql, params);
  }

  all<T extends Row>(sql: string, params?: Params): Promise<T[]> {
    return this.reader().all<T>(sql, params);
  }

  run(sql: string, params?: Params): Promise<RunResult> {
    return this.serialised(() => this.whenUnlocked(() => this.writer.run(sql, params)));
  }

  returning<T extends Row>(sql: string, params?: Params): Promise<T[]> {
    return this.serialised(() => this.whenUnlocked(() => this.writer.all<T>(sql, params)));
  }

  /** One statement (a script of several belongs in a transaction: a retry after SQLITE_BUSY would repeat its start). */
  exec(script: string): Promise<void> {
    return this.serialised(() => this.whenUnlocked(() => this.writer.exec(script)));
  }

  tx<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    return this.serialised(async () => {
      await this.whenUnlocked(() => this.writer.exec('BEGIN IMMEDIATE'));
      try {
        const result = await work(this.writer);
        await this.writer.exec('COMMIT');
        return result;
      } catch (err) {
        await this.writer.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  grouped<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (this.waiting.length === 1) void this.serialised(() => this.commitGroup());
    });
  }

  /**
   * One transaction for everything grouped so far; a failed begin or commit fails the whole group. Each work
   * runs in its own savepoint; closing one and opening the next (or committing) is a single round trip.
   */
  private async commitGroup(): Promise<void> {
    const group = this.waiting.splice(0, MAX_GROUP);
    if (this.waiting.length) void this.serialised(() => this.commitGroup());
    try {
      // exec stops at the first error, so a BEGIN refused as busy left nothing behind to repeat.
      await this.whenUnlocked(() => this.writer.exec('BEGIN IMMEDIATE; SAVEPOINT grouped'));
      const outcomes: Outcome[] = [];
      for (const [i, item] of group.entries()) {
        const outcome = await this.attempt(item.work);
        outcomes.push(outcome);
        const close = outcome.ok ? 'RELEASE grouped' : 'ROLLBACK TO grouped; RELEASE grouped';
        await this.writer.exec(`${close}; ${i < group.length - 1 ? 'SAVEPOINT grouped' : 'COMMIT'}`);
      }
      group.forEach((item, i) => settle(item, outcomes[i]!));
    } catch (error) {
      // Every waiter hears of the failure; none is left waiting for a commit that will not come.
      await this.writer.exec('ROLLBACK').catch(() => undefined);
      for (const item of group) item.reject(error);
    }
  }

  /**
   * Runs a statement that takes the write lock, trying again every millisecond while another process holds
   * it (SQLITE_BUSY), up to the busy timeout. SQLite's own busy handler sleeps 1, 2, 5, 10, … 100 ms between
   * tries and blocks a pool thread while it sleeps: with the API and the MTA both writing, its waits were
   * the p99 of a send. A refused try has no effect (the writer runs with no busy handler), so it is safe to repeat.
   */
  private async whenUnlocked<T>(statement: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (;;) {
      try {
        return await statement();
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  }

  private async attempt(work: (q: Queryable) => Promise<unknown>): Promise<Outcome> {
    try {
      return { ok: true, value: await work(this.writer) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await Promise.all([this.writer.close(), ...this.readers.map((r) => r.close())]);
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

const PRAGMAS = ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = FULL', 'PRAGMA foreign_keys = ON'];

/** `busyTimeoutMs`: how long a statement waits for another process's lock before failing (SQLITE_BUSY). */
export async function openSqlite(file: string, { busyTimeoutMs = 10_000 } = {}): Promise<Sql> {
  const writer = await Connection.open(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  writer.busyTimeout(busyTimeoutMs);
  for (const pragma of PRAGMAS) await writer.exec(pragma);
  // From here the writer's waits for the lock are SqliteSql.whenUnlocked's.
  writer.busyTimeout(0);
  const readers: Connection[] = [];
  for (let i = 0; i < READERS; i++) {
    const reader = await Connection.open(file, sqlite3.OPEN_READWRITE);
    reader.busyTimeout(busyTimeoutMs);
    await reader.exec('PRAGMA foreign_keys = ON');
    readers.push(reader);
  }
  return new SqliteSql(writer, readers, busyTimeoutMs);
}
