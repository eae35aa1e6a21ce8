// The message log repository on PostgreSQL: messages, their recipients and every delivery attempt, read back and
// decoded at the edge; recording (message-insert.ts, a unit-of-work operation) and listing (log-listing.ts) have
// files of their own. Recipients' moves through delivery (claim, finish, release) are the queue's: see queue.ts.
import type { PgSql } from './sql.js';
import type { PageOf } from '../paging.js';
import type { DeliveryAttempt, LoggedRecipient, MessageLogDetail, NumberedLogEntry } from '../../domain/message-log.js';
import type { MessageLogRepository, MessageQuery } from '../message-log.js';
import { countOf } from './decode.js';
import { LISTED_COLUMNS, listStatements } from './log-listing.js';
import { decodeAttempt, decodeBody, decodeDetail, decodeEntry, decodeRecipient, decodeRecipientCount, decodeStateCount } from '../message-row.js';

const DETAIL = `SELECT ${LISTED_COLUMNS('m')} FROM messages m`;

export class PgMessageStore implements MessageLogRepository {
  constructor(private readonly sql: PgSql) {}

  async get(id: string, teamId?: number): Promise<MessageLogDetail | undefined> {
    const row =
      teamId === undefined ? await this.sql.get(`${DETAIL} WHERE m.id = $1`, [id]) : await this.sql.get(`${DETAIL} WHERE m.id = $1 AND m.team_id = $2`, [id, teamId]);
    return row && decodeDetail(row);
  }

  async getByLogId(logId: number): Promise<MessageLogDetail | undefined> {
    const row = await this.sql.get(`${DETAIL} WHERE m.rowid = $1`, [logId]);
    return row && decodeDetail(row);
  }

  async body(id: string): Promise<Buffer | undefined> {
    const row = await this.sql.get('SELECT body FROM message_bodies WHERE message_id = $1', [id]);
    return row && decodeBody(row);
  }

  async recipientCounts(messageIds: readonly string[]): Promise<Map<string, number>> {
    if (!messageIds.length) return new Map();
    const rows = await this.sql.all('SELECT message_id, COUNT(*) AS n FROM recipients WHERE message_id = ANY($1::text[]) GROUP BY message_id', [messageIds]);
    return new Map(rows.map(decodeRecipientCount));
  }

  async recipientsOf(messageId: string): Promise<LoggedRecipient[]> {
    const rows = await this.sql.all(
      `SELECT id, message_id, email, name, kind, domain, state, reason, attempts, next_attempt_at, last_reply, queued_at, updated_at
       FROM recipients WHERE message_id = $1 ORDER BY id`,
      [messageId],
    );
    return rows.map(decodeRecipient);
  }

  async attemptsOf(messageId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.sql.all(
      'SELECT a.recipient_id, a.at, a.mx_host, a.ip, a.outcome, a.reply FROM attempts a JOIN recipients r ON r.id = a.recipient_id WHERE r.message_id = $1 ORDER BY a.id',
      [messageId],
    );
    return rows.map(decodeAttempt);
  }

  /** One page of a team's log (or every team's: null), newest first, and its total (see MessageQuery.searchCountLimit). */
  async list(teamId: number | null, query: MessageQuery): Promise<PageOf<NumberedLogEntry>> {
    const statements = listStatements(teamId, query);
    if (!statements) return { rows: [], total: 0 };
    // One text serves every search word and status, from the rarest to the most common: planned per call. The
    // count first: how a search's page is best read depends on how many it found.
    const [count] = await this.sql.allPlannedPerCall(statements.count.sql, statements.count.params);
    const total = countOf(count!);
    const page = statements.page(total);
    const rows = await this.sql.allPlannedPerCall(page.sql, page.params);
    return { rows: rows.map(decodeEntry), total };
  }

  /** Every recipient by state, history included: a scan of the whole table, for tests and one-off checks. */
  async countByState(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.sql.all('SELECT state, COUNT(*) AS n FROM recipients GROUP BY state ORDER BY state')).map(decodeStateCount));
  }
}
