// What the benchmarks need of the store's engine: a bulk loader that fills a deployment's message log with
// synthetic rows far faster than sending them, and an explainer of the statements the log's list runs. Each
// engine brings its own (SQLite's: store/sqlite/log-loader.ts); the product never uses them.
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
  /** Folds the write-ahead log into the database file, so the queries that follow do not read through it. */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

/** One of the statements the message log's list() runs, explained. */
export interface ExplainedStatement {
  statement: 'page' | 'count';
  /** The engine's query plan, one detail line per step (SQLite: EXPLAIN QUERY PLAN). */
  plan: string[];
  /** The time of each run of the statement alone, in ms. */
  runsMs: number[];
}

export interface ListExplainer {
  /** The statements list() runs for the query (the page, then the count), each with its plan and its run times. */
  explainList(teamId: number, query: MessageQuery, runs: number): Promise<ExplainedStatement[]>;
  close(): Promise<void>;
}

export interface LogLoading {
  /** A loader on the database of a deployment's data directory, on a connection of its own. */
  openLogLoader(dataDir: string): Promise<LogLoader>;
  /** An explainer on the database of a deployment's data directory, on a connection of its own. */
  openListExplainer(dataDir: string): Promise<ListExplainer>;
}
