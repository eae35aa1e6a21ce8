// What the benchmarks need of the store's engine: a bulk loader that fills a deployment's message log with
// synthetic rows far faster than sending them, and an explainer of the statements the log's list runs. Each
// engine brings its own (store/sqlite/log-loader.ts, store/postgres/log-loader.ts); the product never uses them.
import type { LoggedRecipient, MessageLogDetail } from '../domain/message-log.js';
import type { MessageQuery } from './message-log.js';

/** A recipient as it stands after its deliveries; attempts and last reply are left as a new row has them. */
export type LoadedRecipient = Omit<LoggedRecipient, 'id' | 'messageId' | 'attempts' | 'lastReply'>;

/** A message of the log with its recipients, as they stand after its deliveries. */
export interface LoadedMessage extends MessageLogDetail {
  recipients: LoadedRecipient[];
}

export interface LogLoader {
  /**
   * Writes the messages, in the order given (which becomes the log's order), with their recipients and their
   * search index rows, in one transaction, as the message log's insert() writes them.
   */
  writeBatch(messages: readonly LoadedMessage[]): Promise<void>;
  /**
   * Leaves the database as a running installation would have it before the queries that follow: SQLite folds
   * its write-ahead log into the database file; PostgreSQL vacuums and analyzes the tables written (as autovacuum would).
   */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

/** One of the statements the message log's list() runs, explained. */
export interface ExplainedStatement {
  statement: 'page' | 'count';
  /** The engine's query plan, one line per step (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN ANALYZE's lines). */
  plan: string[];
  /** The time of each run of the statement alone, in ms. */
  runsMs: number[];
}

export interface ListExplainer {
  /** The statements list() runs for the query (the page, then the count), each with its plan and its run times. */
  explainList(teamId: number, query: MessageQuery, runs: number): Promise<ExplainedStatement[]>;
  close(): Promise<void>;
}

/**
 * The loading of a deployment's store, named as openStore names it: the data directory, and the PostgreSQL URL
 * (TERNMAIL_DATABASE_URL) when the deployment runs on PostgreSQL, null on SQLite (the database file in the data dir).
 */
export interface LogLoading {
  /** A loader on the deployment's database, on a connection of its own. */
  openLogLoader(dataDir: string, databaseUrl: string | null): Promise<LogLoader>;
  /** An explainer on the deployment's database, on a connection of its own. */
  openListExplainer(dataDir: string, databaseUrl: string | null): Promise<ListExplainer>;
}

/** One engine's loading, on the database it is given: SQLite's data directory, PostgreSQL's URL. */
export interface EngineLogLoading {
  openLogLoader(database: string): Promise<LogLoader>;
  openListExplainer(database: string): Promise<ListExplainer>;
}
