// The narrow SQL surface the PostgreSQL repositories use, over node-postgres's pool: `$1, $2, …` placeholders,
// one statement per call, transactions on one pooled client. The SQLite engine has its own (store/sqlite/sql.ts).
import { createHash } from 'node:crypto';
import pg from 'pg';

/** A parameter; an array is sent as a PostgreSQL array (`id = ANY($1)`, `unnest($1::bigint[])`): one parameter for a whole list. */
export type SqlValue = string | number | bigint | boolean | null | Buffer | ReadonlyArray<string | number | null>;
export type Params = readonly SqlValue[];
export type Row = Record<string, unknown>;

export interface RunResult {
  /** The rows the statement inserted, updated or deleted (node-postgres's rowCount). */
  changes: number;
}

export interface Queryable {
  get<T extends Row>(sql: string, params?: Params): Promise<T | undefined>;
  all<T extends Row>(sql: string, params?: Params): Promise<T[]>;
  run(sql: string, params?: Params): Promise<RunResult>;
  /**
   * For a read whose best plan depends on its values (how common a search word is, how rare a status): sent as
   * an unnamed statement, so PostgreSQL plans it for these values on every call. A named statement is planned for
   * its values only for its first five runs; then PostgreSQL may settle on one generic plan for every value.
   */
  allPlannedPerCall<T extends Row>(sql: string, params?: Params): Promise<T[]>;
  /**
   * Inside a transaction, the writes of one kind kept for its end: the first call makes them (`make`), every call
   * gets the same ones, and their flush runs just before COMMIT, kinds in the order first asked for. Undefined
   * outside a transaction (a statement on the pool commits by itself: write at once).
   */
  atCommit?<T extends AtCommit>(kind: string, make: () => T): T;
}

/** Writes a transaction keeps for its end (see Queryable.atCommit). */
export interface AtCommit {
  flush(q: Queryable): Promise<void>;
}

export interface PgSql extends Queryable {
  /**
   * Runs `work` in one READ COMMITTED transaction on one pooled client: committed when it resolves, rolled back
   * when it throws. Under READ COMMITTED each statement sees what was committed when it started, so a limit or
   * a lease is decided by the writing statement itself (conditional UPDATE … RETURNING, constraints), never by
   * a read earlier in the transaction.
   */
  tx<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * int8 (BIGINT, COUNT(*)) and numeric (SUM of BIGINTs) come from the server as text, because a JavaScript number
 * holds integers exactly only up to 2^53. Every integer Tern stores (ids, epoch milliseconds, credits, counters)
 * stays far below that, so they are read as numbers; a value that would not be exact is left as its text, and the
 * row's decoder then refuses it loudly (StoreDecodeError) instead of handing on a rounded number.
 */
function exactNumber(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : text;
}

const INT8 = 20;
const NUMERIC = 1700;

/** The pool's own type parsers (the others fall back to pg's): pg's global ones stay untouched for any other user of the library. */
const types = new pg.TypeOverrides();
types.setTypeParser(INT8, exactNumber);
types.setTypeParser(NUMERIC, exactNumber);

/**
 * Parameters of a statement built from parts (a filter's optional terms): `add` gives the value's placeholder
 * (`$1`, `$2`, …) in the order the values are added. A statement of fixed text writes its `$n` itself.
 */
export class ParamList {
  readonly values: SqlValue[] = [];

  add(value: SqlValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The SQLSTATE of a unique violation, and what repositories ask of a failed write to map it to a domain outcome. */
export const UNIQUE_VIOLATION = '23505';

/**
 * Whether `err` is a unique violation, of the constraint or index named `constraint` when given: a repository
 * maps it to its outcome ('exists', 'email_taken', …) and rethrows anything else. Inside tx, the transaction is
 * aborted by the error: catch it outside, or guard the insert with ON CONFLICT instead.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof pg.DatabaseError) || err.code !== UNIQUE_VIOLATION) return false;
  return constraint === undefined || err.constraint === constraint;
}

/**
 * Statements are sent as named prepared statements: each pooled connection parses one once, then binds. The name
 * is derived from the text, so the same text always has the same name on every connection. (Reads whose plan
 * must follow their values use allPlannedPerCall.)
 */
const names = new Map<string, string>();
const MAX_NAMES = 2_000;

function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `t${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(sql, name);
  }
  return name;
}

type Runner = pg.Pool | pg.PoolClient;

class Statements implements Queryable {
  constructor(private readonly on: Runner) {}

  async get<T extends Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T extends Row>(sql: string, params: Params = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async run(sql: string, params: Params = []): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async allPlannedPerCall<T extends Row>(sql: string, params: Params = []): Promise<T[]> {
    return (await this.on.query<T>({ text: sql, values: params as unknown[] })).rows;
  }

  private query<T extends Row>(sql: string, params: Params): Promise<pg.QueryResult<T>> {
    return this.on.query<T>({ name: statementName(sql), text: sql, values: params as unknown[] });
  }
}

/** A transaction's statements, with the writes it keeps for its end. */
class TxStatements extends Statements {
  private readonly pending = new Map<string, AtCommit>();

  atCommit<T extends AtCommit>(kind: string, make: () => T): T {
    let writes = this.pending.get(kind);
    if (!writes) this.pending.set(kind, (writes = make()));
    return writes as T;
  }

  async flush(): Promise<void> {
    for (const writes of this.pending.values()) await writes.flush(this);
    this.pending.clear();
  }
}

class PostgresSql extends Statements implements PgSql {
  constructor(private readonly pool: pg.Pool) {
    super(pool);
  }

  async tx<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      const statements = new TxStatements(client);
      const result = await work(statements);
      await statements.flush();
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A client whose ROLLBACK failed is in an unknown state: it is destroyed, not given back to the pool.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

export interface PoolOptions {
  /** Connections the pool keeps at most (node-postgres's default is 10). */
  max?: number;
}

/** A pool on the database of `url` (postgres://user@host:port/db). No connection is made until the first statement. */
export function openPostgres(url: string, options: PoolOptions = {}): PgSql {
  const pool = new pg.Pool({ connectionString: url, types, max: options.max ?? 10 });
  // An idle client losing its connection (a server restart) is dropped by the pool; without a listener it would crash the process.
  pool.on('error', () => undefined);
  return new PostgresSql(pool);
}

/** One connection of its own, for what must hold a session (migrations under their lock). The caller ends it. */
/** Where a URL points, for messages: host, port and database, never the credentials. */
export function describePostgres(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname || 'localhost'}:${u.port || '5432'}, database ${decodeURIComponent(u.pathname.slice(1)) || '(none)'}`;
  } catch {
    return 'PostgreSQL (an unreadable URL)';
  }
}

/** One client of its own (migrations, bulk loads); an error naming the server when it cannot be reached or refuses. */
export async function connectPostgres(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new Error(`${describePostgres(url)} cannot be reached: ${(err as Error).message} (TERNMAIL_DATABASE_URL)`, { cause: err });
  }
  return client;
}
