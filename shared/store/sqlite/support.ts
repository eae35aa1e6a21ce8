// Support tickets, responses, votes, attachments, docs and the forwarding setting in SQLite. Writes that
// depend on a ticket's status run in one transaction whose UPDATE is fenced on that status.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { AuditLogStore } from './audit-log.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { nowIso } from '../../time.js';
import type { Attachment, ForwardKind, SupportDoc, SupportForward, SupportSettings, Ticket, TicketResponse, Vote } from '../../domain/support.js';
import type { NewAuditEntry } from '../audit-log.js';
import type { ForwardOutcome, NewAttachment, NewResponse, NewTicket, SupportRepository, TicketFilter, TicketMiss } from '../support.js';
import {
  ATTACHMENT_COLUMNS,
  decodeAttachment,
  decodeDoc,
  decodeForward,
  FORWARD_COLUMNS,
  decodeResponse,
  decodeTicket,
  RESPONSE_COLUMNS,
  RESPONSE_FROM,
  SUPPORT_SETTINGS,
  TICKET_COLUMNS,
  TICKET_FROM,
} from '../support-row.js';
import { decodeSettings, settingsValue } from '../support-settings.js';
import { likeContains } from '../like.js';

/** Thrown inside a transaction to roll it back with an outcome. */
class Missed extends Error {
  constructor(readonly miss: TicketMiss) {
    super(miss);
  }
}

async function rolledBack<T>(work: Promise<T>): Promise<T | TicketMiss> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof Missed) return err.miss;
    throw err;
  }
}

const readTicket = async (q: Queryable, id: number): Promise<Ticket | undefined> => {
  const row = await q.get(`SELECT ${TICKET_COLUMNS} FROM ${TICKET_FROM} WHERE t.id = ?`, [id]);
  return row && decodeTicket(row);
};

/** Binds the uploader's unsent attachments to a ticket (and response); every one must be bound, or the transaction rolls back. */
async function bind(q: Queryable, ids: readonly number[], uploadedBy: number, ticketId: number, responseId: number | null): Promise<void> {
  if (!ids.length) return;
  const marks = ids.map(() => '?').join(', ');
  const done = await q.run(`UPDATE support_attachments SET ticket_id = ?, response_id = ? WHERE id IN (${marks}) AND uploaded_by = ? AND ticket_id IS NULL`, [
    ticketId,
    responseId,
    ...ids,
    uploadedBy,
  ]);
  if (done.changes !== new Set(ids).size) throw new Missed('attachment_unknown');
}

function whereOf(f: TicketFilter): [string, SqlValue[]] {
  const terms: string[] = [];
  const params: SqlValue[] = [];
  if (f.teamId !== undefined) {
    terms.push('t.team_id = ?');
    params.push(f.teamId);
  }
  if (f.status === 'open') terms.push("t.status <> 'closed'");
  if (f.status === 'closed') terms.push("t.status = 'closed'");
  if (f.assigned === 'none') terms.push('t.assigned_to IS NULL');
  else if (f.assigned !== undefined) {
    terms.push('t.assigned_to = ?');
    params.push(f.assigned);
  }
  if (f.search !== undefined) {
    terms.push("(t.title LIKE ? ESCAPE '\\' OR t.content LIKE ? ESCAPE '\\')");
    params.push(likeContains(f.search), likeContains(f.search));
  }
  return [terms.length ? terms.join(' AND ') : '1 = 1', params];
}

/** The move's fence: closing needs a ticket not closed, re-opening a closed one. */
const FENCE = { closed: "status <> 'closed'", active: "status = 'closed'" } as const;

/** The outbox row of a new ticket or response, in its transaction: due at once. */
async function enqueueForward(q: Queryable, kind: ForwardKind, ticketId: number, responseId: number | null, now: string): Promise<void> {
  await q.run('INSERT INTO support_forwards (kind, ticket_id, response_id, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)', [kind, ticketId, responseId, now, now]);
}

export class SupportStore implements SupportRepository {
  constructor(private readonly sql: Sql) {}

  openTicket(t: NewTicket): Promise<Ticket | 'attachment_unknown'> {
    const work = this.sql.tx(async (q) => {
      const now = nowIso();
      const made = await q.run(
        `INSERT INTO support_tickets (team_id, opened_by, title, content, product, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [t.teamId, t.openedBy, t.title, t.content, t.product, t.priority, now, now],
      );
      await bind(q, t.attachmentIds, t.openedBy, made.lastId, null);
      if (t.forward) await enqueueForward(q, 'ticket.created', made.lastId, null, now);
      return (await readTicket(q, made.lastId))!;
    });
    return rolledBack(work) as Promise<Ticket | 'attachment_unknown'>;
  }

  async getTicket(id: number, teamId?: number): Promise<Ticket | undefined> {
    const ticket = await readTicket(this.sql, id);
    return ticket && (teamId === undefined || ticket.teamId === teamId) ? ticket : undefined;
  }

  async listTickets(f: TicketFilter, page: PageRequest): Promise<PageOf<Ticket>> {
    const [where, params] = whereOf(f);
    const order = f.order === 'asc' ? 'ASC' : 'DESC';
    const rows = await this.sql.all(`SELECT ${TICKET_COLUMNS} FROM ${TICKET_FROM} WHERE ${where} ORDER BY t.${f.orderBy} ${order}, t.id ${order} LIMIT ? OFFSET ?`, [
      ...params,
      ...limitOffset(page),
    ]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM support_tickets t WHERE ${where}`, params);
    return { rows: rows.map(decodeTicket), total: countOf(total!) };
  }

  async responsesOf(ticketId: number): Promise<TicketResponse[]> {
    return (await this.sql.all(`SELECT ${RESPONSE_COLUMNS} FROM ${RESPONSE_FROM} WHERE r.ticket_id = ? ORDER BY r.id`, [ticketId])).map(decodeResponse);
  }

  respond(r: NewResponse, audit: ((response: TicketResponse) => NewAuditEntry) | null): Promise<TicketResponse | TicketMiss> {
    return rolledBack(
      this.sql.tx(async (q) => {
        const now = nowIso();
        // An agent's response answers the ticket (active); a customer's leaves its status.
        const moved = await q.run(
          `UPDATE support_tickets SET status = CASE WHEN ? = 'agent' THEN 'active' ELSE status END, response_count = response_count + 1, updated_at = ?
           WHERE id = ? AND (? IS NULL OR team_id = ?) AND status <> 'closed'`,
          [r.authorKind, now, r.ticketId, r.teamId ?? null, r.teamId ?? null],
        );
        if (moved.changes === 0) throw new Missed((await this.visible(q, r.ticketId, r.teamId)) ? 'closed' : 'not_found');
        const made = await q.run(`INSERT INTO support_responses (ticket_id, author_id, author_kind, content, created_at) VALUES (?, ?, ?, ?, ?)`, [
          r.ticketId,
          r.authorId,
          r.authorKind,
          r.content,
          now,
        ]);
        await bind(q, r.attachmentIds, r.authorId, r.ticketId, made.lastId);
        if (r.forward) await enqueueForward(q, 'ticket.response', r.ticketId, made.lastId, now);
        const response = decodeResponse((await q.get(`SELECT ${RESPONSE_COLUMNS} FROM ${RESPONSE_FROM} WHERE r.id = ?`, [made.lastId]))!);
        if (audit) await AuditLogStore.insert(q, audit(response));
        return response;
      }),
    );
  }

  private async visible(q: Queryable, id: number, teamId: number | undefined): Promise<boolean> {
    const ticket = await readTicket(q, id);
    return ticket !== undefined && (teamId === undefined || ticket.teamId === teamId);
  }

  moveTicket(
    id: number,
    teamId: number | undefined,
    to: 'closed' | 'active',
    byUserId: number,
    audit: ((before: Ticket, after: Ticket) => NewAuditEntry) | null,
  ): Promise<Ticket | TicketMiss> {
    return rolledBack(
      this.sql.tx(async (q) => {
        const before = await readTicket(q, id);
        if (!before || (teamId !== undefined && before.teamId !== teamId)) throw new Missed('not_found');
        const closing = to === 'closed';
        const moved = await q.run(`UPDATE support_tickets SET status = ?, closed_by = ?, closed_at = ?, updated_at = ? WHERE id = ? AND ${FENCE[to]}`, [
          to,
          closing ? byUserId : null,
          closing ? nowIso() : null,
          nowIso(),
          id,
        ]);
        if (moved.changes === 0) throw new Missed(closing ? 'closed' : 'not_closed');
        const after = (await readTicket(q, id))!;
        if (audit) await AuditLogStore.insert(q, audit(before, after));
        return after;
      }),
    );
  }

  assignTicket(id: number, agentId: number | null, audit: (before: Ticket, after: Ticket) => NewAuditEntry): Promise<Ticket | 'not_found' | 'not_operator'> {
    return this.sql.tx(async (q) => {
      const before = await readTicket(q, id);
      if (!before) return 'not_found';
      // The role is checked in the UPDATE itself: an operator demoted meanwhile is not assigned.
      const moved = await q.run(
        `UPDATE support_tickets SET assigned_to = ? WHERE id = ? AND (? IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = ? AND role = 'operator'))`,
        [agentId, id, agentId, agentId],
      );
      if (moved.changes === 0) return 'not_operator';
      const after = (await readTicket(q, id))!;
      await AuditLogStore.insert(q, audit(before, after));
      return after;
    });
  }

  async vote(ticketId: number, responseId: number, vote: Vote): Promise<{ feedback: Vote | null } | 'not_found'> {
    const [row] = await this.sql.returning<{ feedback: Vote | null }>(
      `UPDATE support_responses SET feedback = CASE WHEN feedback = ? THEN NULL ELSE ? END
       WHERE id = ? AND ticket_id = ? AND author_kind = 'agent' RETURNING feedback`,
      [vote, vote, responseId, ticketId],
    );
    return row ? { feedback: row.feedback } : 'not_found';
  }

  async addAttachment(a: NewAttachment): Promise<Attachment> {
    const [row] = await this.sql.returning(
      `INSERT INTO support_attachments (uploaded_by, file_name, content_type, size, content, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${ATTACHMENT_COLUMNS}`,
      [a.uploadedBy, a.fileName, a.contentType, a.content.length, a.content, nowIso()],
    );
    return decodeAttachment(row!);
  }

  async removeUnsent(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM support_attachments WHERE ticket_id IS NULL AND response_id IS NULL AND created_at < ?', [before])).changes;
  }

  async attachmentsOf(ticketId: number): Promise<Attachment[]> {
    return (await this.sql.all(`SELECT ${ATTACHMENT_COLUMNS} FROM support_attachments WHERE ticket_id = ? ORDER BY id`, [ticketId])).map(decodeAttachment);
  }

  async attachmentContent(ticketId: number, attachmentId: number): Promise<{ attachment: Attachment; content: Buffer } | undefined> {
    const row = await this.sql.get(`SELECT ${ATTACHMENT_COLUMNS}, content FROM support_attachments WHERE id = ? AND ticket_id = ?`, [attachmentId, ticketId]);
    if (!row) return undefined;
    const content = row.content;
    if (!Buffer.isBuffer(content)) throw new Error('support attachment: the content column did not decode as bytes');
    return { attachment: decodeAttachment(row), content };
  }

  addDoc(title: string, link: string, createdBy: number | null, audit: ((doc: SupportDoc) => NewAuditEntry) | null): Promise<SupportDoc> {
    return this.sql.tx(async (q) => {
      const row = await q.get('INSERT INTO support_docs (title, link, created_by, created_at) VALUES (?, ?, ?, ?) RETURNING id, title, link, created_at', [
        title,
        link,
        createdBy,
        nowIso(),
      ]);
      const doc = decodeDoc(row!);
      if (audit) await AuditLogStore.insert(q, audit(doc));
      return doc;
    });
  }

  async searchDocs(search: string, limit: number): Promise<SupportDoc[]> {
    const rows = await this.sql.all("SELECT id, title, link, created_at FROM support_docs WHERE title LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?", [
      likeContains(search),
      limit,
    ]);
    return rows.map(decodeDoc);
  }

  async settings(): Promise<SupportSettings> {
    return decodeSettings(await this.sql.get('SELECT value, updated_at FROM platform_settings WHERE name = ?', [SUPPORT_SETTINGS]));
  }

  saveSettings(
    next: Omit<SupportSettings, 'updatedAt'>,
    byUserId: number | null,
    audit: (before: SupportSettings, after: SupportSettings) => NewAuditEntry,
  ): Promise<SupportSettings> {
    return this.sql.tx(async (q) => {
      const before = decodeSettings(await q.get('SELECT value, updated_at FROM platform_settings WHERE name = ?', [SUPPORT_SETTINGS]));
      const after: SupportSettings = { ...next, updatedAt: nowIso() };
      await q.run(
        `INSERT INTO platform_settings (name, value, updated_by, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
        [SUPPORT_SETTINGS, settingsValue(after), byUserId, after.updatedAt],
      );
      await AuditLogStore.insert(q, audit(before, after));
      return after;
    });
  }
  async claimForwards(limit: number, now: string, leaseUntil: string, token: string): Promise<SupportForward[]> {
    // The lease is fenced in the UPDATE itself: a row another dispatcher holds (lease not run out) is not taken.
    const rows = await this.sql.all(
      `UPDATE support_forwards SET lease_until = ?, lease_token = ?
       WHERE id IN (SELECT id FROM support_forwards WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY id LIMIT ?)
         AND state = 'pending' AND (lease_until IS NULL OR lease_until < ?)
       RETURNING ${FORWARD_COLUMNS}`,
      [leaseUntil, token, now, now, limit, now],
    );
    return rows.map(decodeForward).sort((a, b) => a.id - b.id);
  }

  async finishForward(id: number, token: string, outcome: ForwardOutcome): Promise<boolean> {
    const state = outcome.kind === 'retry' ? 'pending' : outcome.kind;
    const nextAt = outcome.kind === 'retry' ? outcome.at : null;
    const error = outcome.kind === 'delivered' ? null : outcome.error;
    const finishedAt = outcome.kind === 'retry' ? null : nowIso();
    const done = await this.sql.run(
      `UPDATE support_forwards SET state = ?, attempts = attempts + 1, next_attempt_at = COALESCE(?, next_attempt_at), last_error = ?,
              lease_until = NULL, lease_token = NULL, finished_at = ?
       WHERE id = ? AND lease_token = ?`,
      [state, nextAt, error, finishedAt, id, token],
    );
    return done.changes === 1;
  }

  async forwardsOf(ticketId: number): Promise<SupportForward[]> {
    return (await this.sql.all(`SELECT ${FORWARD_COLUMNS} FROM support_forwards WHERE ticket_id = ? ORDER BY id`, [ticketId])).map(decodeForward);
  }
}
