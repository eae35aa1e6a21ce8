// Support tickets, responses, votes, attachments, docs and the forwarding setting in PostgreSQL, as on SQLite.
// A status move locks the ticket's row (FOR UPDATE) for its before-value and is fenced on the status in its
// UPDATE; a response's UPDATE of the ticket is fenced on the status, so under READ COMMITTED a close and a
// response made together are ordered by the row's lock and the second sees the first.
import { ParamList, type PgSql, type Queryable } from './sql.js';
import { countOf } from './decode.js';
import { PgAuditLogStore } from './audit-log.js';
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

const readTicket = async (q: Queryable, id: number, lock = false): Promise<Ticket | undefined> => {
  const row = await q.get(`SELECT ${TICKET_COLUMNS} FROM ${TICKET_FROM} WHERE t.id = $1${lock ? ' FOR UPDATE OF t' : ''}`, [id]);
  return row && decodeTicket(row);
};

async function bind(q: Queryable, ids: readonly number[], uploadedBy: number, ticketId: number, responseId: number | null): Promise<void> {
  if (!ids.length) return;
  const done = await q.run('UPDATE support_attachments SET ticket_id = $1, response_id = $2 WHERE id = ANY($3::bigint[]) AND uploaded_by = $4 AND ticket_id IS NULL', [
    ticketId,
    responseId,
    [...ids],
    uploadedBy,
  ]);
  if (done.changes !== new Set(ids).size) throw new Missed('attachment_unknown');
}

function whereOf(f: TicketFilter, params: ParamList): string {
  const terms: string[] = [];
  if (f.teamId !== undefined) terms.push(`t.team_id = ${params.add(f.teamId)}`);
  if (f.status === 'open') terms.push("t.status <> 'closed'");
  if (f.status === 'closed') terms.push("t.status = 'closed'");
  if (f.assigned === 'none') terms.push('t.assigned_to IS NULL');
  else if (f.assigned !== undefined) terms.push(`t.assigned_to = ${params.add(f.assigned)}`);
  if (f.search !== undefined) {
    // SQLite's LIKE folds ASCII case; PostgreSQL's ILIKE does.
    const like = params.add(likeContains(f.search));
    terms.push(`(t.title ILIKE ${like} ESCAPE '\\' OR t.content ILIKE ${like} ESCAPE '\\')`);
  }
  return terms.length ? terms.join(' AND ') : 'TRUE';
}

const FENCE = { closed: "status <> 'closed'", active: "status = 'closed'" } as const;

const RESPOND = `UPDATE support_tickets SET status = CASE WHEN $1 = 'agent' THEN 'active' ELSE status END, response_count = response_count + 1, updated_at = $2
  WHERE id = $3 AND ($4::bigint IS NULL OR team_id = $4) AND status <> 'closed'`;

/** The outbox row of a new ticket or response, in its transaction: due at once. */
async function enqueueForward(q: Queryable, kind: ForwardKind, ticketId: number, responseId: number | null, now: string): Promise<void> {
  await q.run('INSERT INTO support_forwards (kind, ticket_id, response_id, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $4)', [kind, ticketId, responseId, now]);
}

export class PgSupportStore implements SupportRepository {
  constructor(private readonly sql: PgSql) {}

  openTicket(t: NewTicket): Promise<Ticket | 'attachment_unknown'> {
    const work = this.sql.tx(async (q) => {
      const now = nowIso();
      const made = await q.get<{ id: number }>(
        `INSERT INTO support_tickets (team_id, opened_by, title, content, product, priority, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
        [t.teamId, t.openedBy, t.title, t.content, t.product, t.priority, now],
      );
      await bind(q, t.attachmentIds, t.openedBy, made!.id, null);
      if (t.forward) await enqueueForward(q, 'ticket.created', made!.id, null, now);
      return (await readTicket(q, made!.id))!;
    });
    return rolledBack(work) as Promise<Ticket | 'attachment_unknown'>;
  }

  async getTicket(id: number, teamId?: number): Promise<Ticket | undefined> {
    const ticket = await readTicket(this.sql, id);
    return ticket && (teamId === undefined || ticket.teamId === teamId) ? ticket : undefined;
  }

  async listTickets(f: TicketFilter, page: PageRequest): Promise<PageOf<Ticket>> {
    const params = new ParamList();
    const where = whereOf(f, params);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM support_tickets t WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const order = f.order === 'asc' ? 'ASC' : 'DESC';
    const rows = await this.sql.all(
      `SELECT ${TICKET_COLUMNS} FROM ${TICKET_FROM} WHERE ${where} ORDER BY t.${f.orderBy} ${order}, t.id ${order} LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    return { rows: rows.map(decodeTicket), total: countOf(total!) };
  }

  async responsesOf(ticketId: number): Promise<TicketResponse[]> {
    return (await this.sql.all(`SELECT ${RESPONSE_COLUMNS} FROM ${RESPONSE_FROM} WHERE r.ticket_id = $1 ORDER BY r.id`, [ticketId])).map(decodeResponse);
  }

  respond(r: NewResponse, audit: ((response: TicketResponse) => NewAuditEntry) | null): Promise<TicketResponse | TicketMiss> {
    return rolledBack(
      this.sql.tx(async (q) => {
        const now = nowIso();
        const moved = await q.run(RESPOND, [r.authorKind, now, r.ticketId, r.teamId ?? null]);
        if (moved.changes === 0) {
          const ticket = await readTicket(q, r.ticketId);
          throw new Missed(ticket && (r.teamId === undefined || ticket.teamId === r.teamId) ? 'closed' : 'not_found');
        }
        const made = await q.get<{ id: number }>(
          'INSERT INTO support_responses (ticket_id, author_id, author_kind, content, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
          [r.ticketId, r.authorId, r.authorKind, r.content, now],
        );
        await bind(q, r.attachmentIds, r.authorId, r.ticketId, made!.id);
        if (r.forward) await enqueueForward(q, 'ticket.response', r.ticketId, made!.id, now);
        const response = decodeResponse((await q.get(`SELECT ${RESPONSE_COLUMNS} FROM ${RESPONSE_FROM} WHERE r.id = $1`, [made!.id]))!);
        if (audit) await PgAuditLogStore.insert(q, audit(response));
        return response;
      }),
    );
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
        const before = await readTicket(q, id, true);
        if (!before || (teamId !== undefined && before.teamId !== teamId)) throw new Missed('not_found');
        const closing = to === 'closed';
        const now = nowIso();
        const moved = await q.run(`UPDATE support_tickets SET status = $1, closed_by = $2, closed_at = $3, updated_at = $4 WHERE id = $5 AND ${FENCE[to]}`, [
          to,
          closing ? byUserId : null,
          closing ? now : null,
          now,
          id,
        ]);
        if (moved.changes === 0) throw new Missed(closing ? 'closed' : 'not_closed');
        const after = (await readTicket(q, id))!;
        if (audit) await PgAuditLogStore.insert(q, audit(before, after));
        return after;
      }),
    );
  }

  assignTicket(id: number, agentId: number | null, audit: (before: Ticket, after: Ticket) => NewAuditEntry): Promise<Ticket | 'not_found' | 'not_operator'> {
    return this.sql.tx(async (q) => {
      const before = await readTicket(q, id, true);
      if (!before) return 'not_found';
      // The role is checked in the UPDATE itself: an operator demoted meanwhile is not assigned.
      const moved = await q.run(
        `UPDATE support_tickets SET assigned_to = $1 WHERE id = $2 AND ($1::bigint IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = $1 AND role = 'operator'))`,
        [agentId, id],
      );
      if (moved.changes === 0) return 'not_operator';
      const after = (await readTicket(q, id))!;
      await PgAuditLogStore.insert(q, audit(before, after));
      return after;
    });
  }

  async vote(ticketId: number, responseId: number, vote: Vote): Promise<{ feedback: Vote | null } | 'not_found'> {
    const row = await this.sql.get<{ feedback: Vote | null }>(
      `UPDATE support_responses SET feedback = CASE WHEN feedback = $1 THEN NULL ELSE $1 END
       WHERE id = $2 AND ticket_id = $3 AND author_kind = 'agent' RETURNING feedback`,
      [vote, responseId, ticketId],
    );
    return row ? { feedback: row.feedback } : 'not_found';
  }

  async addAttachment(a: NewAttachment): Promise<Attachment> {
    const row = await this.sql.get(
      `INSERT INTO support_attachments (uploaded_by, file_name, content_type, size, content, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ATTACHMENT_COLUMNS}`,
      [a.uploadedBy, a.fileName, a.contentType, a.content.length, a.content, nowIso()],
    );
    return decodeAttachment(row!);
  }

  async removeUnsent(before: string): Promise<number> {
    return (await this.sql.run('DELETE FROM support_attachments WHERE ticket_id IS NULL AND response_id IS NULL AND created_at < $1', [before])).changes;
  }

  async attachmentsOf(ticketId: number): Promise<Attachment[]> {
    return (await this.sql.all(`SELECT ${ATTACHMENT_COLUMNS} FROM support_attachments WHERE ticket_id = $1 ORDER BY id`, [ticketId])).map(decodeAttachment);
  }

  async attachmentContent(ticketId: number, attachmentId: number): Promise<{ attachment: Attachment; content: Buffer } | undefined> {
    const row = await this.sql.get(`SELECT ${ATTACHMENT_COLUMNS}, content FROM support_attachments WHERE id = $1 AND ticket_id = $2`, [attachmentId, ticketId]);
    if (!row) return undefined;
    const content = row.content;
    if (!Buffer.isBuffer(content)) throw new Error('support attachment: the content column did not decode as bytes');
    return { attachment: decodeAttachment(row), content };
  }

  addDoc(title: string, link: string, createdBy: number | null, audit: ((doc: SupportDoc) => NewAuditEntry) | null): Promise<SupportDoc> {
    return this.sql.tx(async (q) => {
      const row = await q.get('INSERT INTO support_docs (title, link, created_by, created_at) VALUES ($1, $2, $3, $4) RETURNING id, title, link, created_at', [
        title,
        link,
        createdBy,
        nowIso(),
      ]);
      const doc = decodeDoc(row!);
      if (audit) await PgAuditLogStore.insert(q, audit(doc));
      return doc;
    });
  }

  async searchDocs(search: string, limit: number): Promise<SupportDoc[]> {
    const rows = await this.sql.all("SELECT id, title, link, created_at FROM support_docs WHERE title ILIKE $1 ESCAPE '\\' ORDER BY id DESC LIMIT $2", [
      likeContains(search),
      limit,
    ]);
    return rows.map(decodeDoc);
  }

  async settings(): Promise<SupportSettings> {
    return decodeSettings(await this.sql.get('SELECT value, updated_at FROM platform_settings WHERE name = $1', [SUPPORT_SETTINGS]));
  }

  /** Two operators' changes made together are serialised by a lock on the setting's name (its row may not exist yet). */
  saveSettings(
    next: Omit<SupportSettings, 'updatedAt'>,
    byUserId: number | null,
    audit: (before: SupportSettings, after: SupportSettings) => NewAuditEntry,
  ): Promise<SupportSettings> {
    return this.sql.tx(async (q) => {
      await q.run('SELECT pg_advisory_xact_lock(hashtext($1))', [SUPPORT_SETTINGS]);
      const before = decodeSettings(await q.get('SELECT value, updated_at FROM platform_settings WHERE name = $1', [SUPPORT_SETTINGS]));
      const after: SupportSettings = { ...next, updatedAt: nowIso() };
      await q.run(
        `INSERT INTO platform_settings (name, value, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
        [SUPPORT_SETTINGS, settingsValue(after), byUserId, after.updatedAt],
      );
      await PgAuditLogStore.insert(q, audit(before, after));
      return after;
    });
  }
  async claimForwards(limit: number, now: string, leaseUntil: string, token: string): Promise<SupportForward[]> {
    // The lease is fenced in the UPDATE itself: a row another dispatcher holds (lease not run out) is not taken.
    const rows = await this.sql.all(
      `UPDATE support_forwards SET lease_until = $1, lease_token = $2
       WHERE id IN (SELECT id FROM support_forwards WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
                    ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
         AND state = 'pending' AND (lease_until IS NULL OR lease_until < $3)
       RETURNING ${FORWARD_COLUMNS}`,
      [leaseUntil, token, now, limit],
    );
    return rows.map(decodeForward).sort((a, b) => a.id - b.id);
  }

  async finishForward(id: number, token: string, outcome: ForwardOutcome): Promise<boolean> {
    const state = outcome.kind === 'retry' ? 'pending' : outcome.kind;
    const nextAt = outcome.kind === 'retry' ? outcome.at : null;
    const error = outcome.kind === 'delivered' ? null : outcome.error;
    const finishedAt = outcome.kind === 'retry' ? null : nowIso();
    const done = await this.sql.run(
      `UPDATE support_forwards SET state = $1, attempts = attempts + 1, next_attempt_at = COALESCE($2, next_attempt_at), last_error = $3,
              lease_until = NULL, lease_token = NULL, finished_at = $4
       WHERE id = $5 AND lease_token = $6`,
      [state, nextAt, error, finishedAt, id, token],
    );
    return done.changes === 1;
  }

  async forwardsOf(ticketId: number): Promise<SupportForward[]> {
    return (await this.sql.all(`SELECT ${FORWARD_COLUMNS} FROM support_forwards WHERE ticket_id = $1 ORDER BY id`, [ticketId])).map(decodeForward);
  }
}
