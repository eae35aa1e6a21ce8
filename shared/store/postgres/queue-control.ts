// An operator's reads and moves of the queue on PostgreSQL. Recipients are chosen by team, destination, state, age
// or message on the partial indexes of the queue (recipients_in_flight, recipients_in_flight_by_team,
// recipients_held), so the log's history is never read. Each move is conditional on the states it applies to in
// its own statement, and commits with its audit entry. Hold, release, purge and requeue are the unit of work's
// (unit-of-work.ts): the queue module decides what else they do.
import { ParamList, type PgSql } from './sql.js';
import { PgAuditLogStore } from './audit-log.js';
import { nowIso } from '../../time.js';
import { IN_QUEUE, OPERATION_APPLIES_TO, type RecipientState } from '../../domain/queue-state.js';
import type { DestinationSummary, DueAgain, QueueAudit, QueueControlRepository, QueuedRecipient, QueueSelector } from '../queue-control.js';
import { decodeDestination, decodeDue, decodeLastError, decodeQueued } from '../queued-row.js';

export const quoted = (states: readonly RecipientState[]) => states.map((s) => `'${s}'`).join(', ');

/**
 * The WHERE clause of a selector, its values added to `params`, limited to `within` (the states an operation
 * applies to). The states are the domain's own constants, never a caller's text, so they are written into the
 * statement: the planner then matches them to the partial indexes' conditions.
 */
export function whereOf(selector: QueueSelector, within: readonly RecipientState[], params: ParamList): string {
  const states = selector.states ? within.filter((s) => selector.states!.includes(s)) : within;
  const terms = [states.length ? `state IN (${quoted(states)})` : 'FALSE'];
  if (selector.teamId !== undefined) terms.push(`team_id = ${params.add(selector.teamId)}`);
  if (selector.domain !== undefined) terms.push(`domain = ${params.add(selector.domain)}`);
  if (selector.queuedBefore !== undefined) terms.push(`queued_at < ${params.add(selector.queuedBefore)}`);
  if (selector.messageId !== undefined) terms.push(`message_id = ${params.add(selector.messageId)}`);
  return terms.join(' AND ');
}

export class PgQueueControlStore implements QueueControlRepository {
  constructor(private readonly sql: PgSql) {}

  async listQueued(selector: QueueSelector, limit: number): Promise<QueuedRecipient[]> {
    const p = new ParamList();
    const where = whereOf(selector, IN_QUEUE, p);
    const rows = await this.sql.all(
      `SELECT id, message_id, team_id, email, domain, state, attempts, next_attempt_at, last_reply, queued_at, held_at
       FROM recipients WHERE ${where} ORDER BY queued_at, id LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map(decodeQueued);
  }

  async summarize(selector: QueueSelector): Promise<DestinationSummary[]> {
    const p = new ParamList();
    const where = whereOf(selector, IN_QUEUE, p);
    const rows = await this.sql.all(
      `SELECT domain, COUNT(*) AS total, COUNT(*) FILTER (WHERE state = 'queued') AS queued, COUNT(*) FILTER (WHERE state = 'sending') AS sending,
         COUNT(*) FILTER (WHERE state = 'deferred') AS deferred, COUNT(*) FILTER (WHERE state = 'held') AS held, MIN(queued_at) AS oldest
       FROM recipients WHERE ${where} GROUP BY domain ORDER BY COUNT(*) DESC, domain`,
      p.values,
    );
    // The newest reply of each destination's waiting recipients.
    const errors = await this.sql.all(
      `SELECT domain, last_reply FROM (
         SELECT domain, last_reply, ROW_NUMBER() OVER (PARTITION BY domain ORDER BY updated_at DESC, id DESC) AS newest
         FROM recipients WHERE ${where} AND state IN ('deferred', 'held') AND last_reply IS NOT NULL AND last_reply <> ''
       ) AS replies WHERE newest = 1`,
      p.values,
    );
    const lastError = new Map(errors.map(decodeLastError).map((e) => [e.domain, e.last_reply]));
    return rows.map(decodeDestination).map((d) => ({ ...d, lastError: lastError.get(d.domain) ?? null }));
  }

  flush(selector: QueueSelector, now: number, audit: QueueAudit): Promise<DueAgain[]> {
    const p = new ParamList();
    const at = [p.add(now), p.add(nowIso())];
    const where = whereOf(selector, OPERATION_APPLIES_TO.flush, p);
    return this.sql.tx(async (q) => {
      const rows = await q.all(
        `UPDATE recipients SET next_attempt_at = ${at[0]}, updated_at = ${at[1]} WHERE ${where} RETURNING id, message_id, next_attempt_at AS due`,
        p.values,
      );
      const changed = rows.map(decodeDue);
      await PgAuditLogStore.insert(q, audit(changed.length));
      return changed;
    });
  }

  async dropKeptBodies(finishedBefore: string, limit: number): Promise<number> {
    // A range read of message_bodies_kept: only bodies kept for requeue, the oldest first.
    const res = await this.sql.run(
      'DELETE FROM message_bodies WHERE message_id IN (SELECT message_id FROM message_bodies WHERE kept_since < $1 ORDER BY kept_since LIMIT $2)',
      [finishedBefore, limit],
    );
    return res.changes;
  }
}
