// The message log repository in SQLite: messages, their recipients and every delivery attempt, read back and
// decoded at the edge; recording (message-insert.ts, a unit-of-work operation) and listing (log-listing.ts) have files of their own.
// Recipients' moves through delivery (claim, finish, release) are the queue's: see queue.ts.
import type { Sql } from './sql.js';
import type { PageOf } from '../paging.js';
import type { DeliveryAttempt, LoggedRecipient, MessageLogDetail, NumberedLogEntry } from '../../domain/message-log.js';
import type { MessageLogRepository, MessageQuery } from '../message-log.js';
import { countOf } from './decode.js';
import { listStatements } from './log-listing.js';
import { decodeAttempt, decodeBody, decodeDetail, decodeEntry, decodeRecipient, decodeRecipientCount, decodeStateCount } from '../message-row.js';

export class MessageStore implements MessageLogRepository {
  constructor(private readonly sql: Sql) {}

  async get(id: string, teamId?: number): Promise<MessageLogDetail | undefined> {
    const where = teamId === undefined ? 'id = ?' : 'id = ? AND team_id = ?';
    const row = await this.sql.get(`SELECT * FROM messages WHERE ${where}`, teamId === undefined ? [id] : [id, teamId]);
    return row && decodeDetail(row);
  }

  async getByLogId(logId: number): Promise<MessageLogDetail | undefined> {
    const row = await this.sql.get('SELECT * FROM messages WHERE rowid = ?', [logId]);
    return row && decodeDetail(row);
  }

  async body(id: string): Promise<Buffer | undefined> {
    const row = await this.sql.get('SELECT body FROM message_bodies WHERE message_id = ?', [id]);
    return row && decodeBody(row);
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all(
      `SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id IN (${messageIds.map(() => '?').join(',')}) GROUP BY message_id`,
      messageIds,
    );
    return new Map(rows.map(decodeRecipientCount));
  }

  async recipientsOf(messageId: string): Promise<LoggedRecipient[]> {
    return (await this.sql.all('SELECT * FROM recipients WHERE message_id = ? ORDER BY id', [messageId])).map(decodeRecipient);
  }

  async attemptsOf(messageId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.sql.all(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = ? ORDER BY a.id',
      [messageId],
    );
    return rows.map(decodeAttempt);
  }

  /** One page of a team's log (or every team's: null), newest first, and its total (see MessageQuery.searchCountLimit). */
  async list(teamId: number | null, query: MessageQuery): Promise<PageOf<NumberedLogEntry>> {
    const statements = listStatements(teamId, query);
    if (!statements) return { rows: [], total: 0 };
    const rows = await this.sql.all(statements.page.sql, statements.page.params);
    const count = await this.sql.get(statements.count.sql, statements.count.params);
    return { rows: rows.map(decodeEntry), total: countOf(count!) };
  }

  /** Every recipient by state, history included: a scan of the whole table, for tests and one-off checks. */
  async countByState(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.sql.all('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state')).map(decodeStateCount));
  }
}
