// An operator's reads and moves of the queue in SQLite. Recipients are chosen by team, destination, state, age
// or message on the partial indexes of the queue (recipients_in_flight, recipients_in_flight_by_team,
// recipients_held), so the log's history is never read. Each move is conditional on the states it applies to in
// its own statement, and commits with its audit entry. A purge's and a requeue's rows are the unit of work's
// (unit-of-work.ts): the queue module decides what else they do.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { AuditLogStore } from './audit-log.js';
import { nowIso } from '../../time.js';
import { IN_QUEUE, OPERATION_APPLIES_TO, type QueueOperation, type RecipientState } from '../../domain/queue-state.js';
import type { DestinationSummary, DueAgain, QueueAudit, QueueControlRepository, QueuedRecipient, QueueSelector } from '../queue-control.js';
import { decodeDestination, decodeDue, decodeLastError, decodeQueued } from '../queued-row.js';

export const quoted = (states: readonly RecipientState[]) => states.map((s) => `'${s}'`).join(', ');

/**
 * The WHERE clause of a selector and its params, limited to `within` (the states an operation applies to).
 * The states are the domain's own constants, never a caller's text, so they are written into the statement:
 * SQLite then matches them to the partial indexes' conditions.
 */
export function whereOf(selector: QueueSelector, within: readonly RecipientState[]): [string, SqlValue[]] {
  const states = selector.states ? within.filter((s) => selector.states!.includes(s)) : within;
  const terms = [states.length ? `state IN (${quoted(states)})` : '0 = 1'];
  const params: SqlValue[] = [];
  const add = (term: string, value: SqlValue) => {
    terms.push(term);
    params.push(value);
  };
  if (selector.teamId !== undefined) add('team_id = ?', selector.teamId);
  if (selector.domain !== undefined) add('domain = ?', selector.domain);
  if (selector.queuedBefore !== undefined) add('queued_at < ?', selector.queuedBefore);
  if (selector.messageId !== undefined) add('message_id = ?', selector.messageId);
  return [terms.join(' AND '), params];
}

const within = (operation: QueueOperation) => OPERATION_APPLIES_TO[operation];
const howMany = (changed: readonly unknown[]) => changed.length;

export class QueueControlStore implements QueueControlRepository {
  constructor(private readonly sql: Sql) {}

  async listQueued(selector: QueueSelector, limit: number): Promise<QueuedRecipient[]> {
    const [where, params] = whereOf(selector, IN_QUEUE);
    const rows = await this.sql.all(
      `SELECT id, message_id, team_id, email, domain, state, attempts, next_attempt_at, last_reply, queued_at, held_at
       FROM recipients WHERE ${where} ORDER BY queued_at, id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(decodeQueued);
  }

  async summarize(selector: QueueSelector): Promise<DestinationSummary[]> {
    const [where, params] = whereOf(selector, IN_QUEUE);
    const rows = await this.sql.all(
      `SELECT domain, COUNT(*) AS total, SUM(state = 'queued') AS queued, SUM(state = 'sending') AS sending, SUM(state = 'deferred') AS deferred,
         SUM(state = 'held') AS held, MIN(queued_at) AS oldest
       FROM recipients WHERE ${where} GROUP BY domain ORDER BY COUNT(*) DESC, domain`,
      params,
    );
    // The newest reply of each destination's waiting recipients (a window function: PostgreSQL has the same).
    const errors = await this.sql.all(
      `SELECT domain, last_reply FROM (
         SELECT domain, last_reply, ROW_NUMBER() OVER (PARTITION BY domain ORDER BY updated_at DESC, id DESC) AS newest
         FROM recipients WHERE ${where} AND state IN ('deferred', 'held') AND last_reply IS NOT NULL AND last_reply <> ''
       ) WHERE newest = 1`,
      params,
    );
    const lastError = new Map(errors.map(decodeLastError).map((e) => [e.domain, e.last_reply]));
    return rows.map(decodeDestination).map((d) => ({ ...d, lastError: lastError.get(d.domain) ?? null }));
  }

  flush(selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]> {
    const [where, params] = whereOf(selector, within('flush'));
    return this.audited(
      audit,
      async (q) => {
        const rows = await q.all(`UPDATE recipients SET next_attempt_at = ?, updated_at = ? WHERE ${where} RETURNING id, message_id, next_attempt_at AS due`, [
          now,
          nowIso(),
          ...params,
        ]);
        return rows.map(decodeDue);
      },
      howMany,
    );
  }

  async dropKeptBodies(finishedBefore: string, limit: number): Promise<number> {
    // A range read of message_bodies_kept (migration 29): only bodies kept for requeue, the oldest first.
    const res = await this.sql.run(
      'DELETE FROM message_bodies WHERE message_id IN (SELECT message_id FROM message_bodies WHERE kept_since < ? ORDER BY kept_since LIMIT ?)',
      [finishedBefore, limit],
    );
    return res.changes;
  }

  /** Runs a change and writes its audit entry, from how many recipients it changed, in the same transaction. */
  private audited<T>(audit: QueueAudit, change: (q: Queryable) => Promise<T>, count: (changed: T) => number): Promise<T> {
    return this.sql.tx(async (q) => {
      const changed = await change(q);
      await AuditLogStore.insert(q, audit(count(changed)));
      return changed;
    });
  }
}
