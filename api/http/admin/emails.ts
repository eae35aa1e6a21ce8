// /v2/emails (GET): the message logs. The list searches subject, sender and recipients by whole words;
// the single record adds per-recipient states with every delivery attempt.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { DataOf, IsoDateTime, ListEnvelope, PageQuery } from '../schemas/common.js';
import { MESSAGE_STATUSES, RECIPIENT_STATES } from '../../../shared/domain/queue-state.js';
import type { DeliveryAttempt, LoggedRecipient, MessageLogEntry } from '../../../shared/domain/message-log.js';
import { envelope, pageFrom } from '../../pipeline/paging.js';
import { valueOf } from './refusal-errors.js';
import type { LoggedMessage } from '../../../shared/core/message-log.js';

const Status = Type.Union(MESSAGE_STATUSES.map((s) => Type.Literal(s)));
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const MessageItem = Type.Object({
  id: Type.String(),
  status: Status,
  subject: Type.String(),
  from: Type.String(),
  from_name: Type.String(),
  to: Type.Array(Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) })),
  reply_to: Nullable(Type.String()),
  recipients_count: Type.Integer(),
  error: Nullable(Type.String()),
  has_attachments: Type.Boolean(),
  sent_at: Nullable(IsoDateTime),
  created_at: IsoDateTime,
});

const Attempt = Type.Object({ at: IsoDateTime, mx_host: Nullable(Type.String()), ip: Nullable(Type.String()), outcome: Type.String(), reply: Type.String() });

const MessageDetail = Type.Intersect([
  MessageItem,
  Type.Object({
    team_id: Type.Integer(),
    sending_key_id: Nullable(Type.Integer()),
    message_id_header: Type.String(),
    size: Type.Integer(),
    source: Type.Union([Type.Literal('http'), Type.Literal('smtp'), Type.Literal('system')]),
    headers: Type.Record(Type.String(), Type.String()),
    recipients: Type.Array(
      Type.Object({
        email: Type.String(),
        name: Type.String(),
        type: Type.Union([Type.Literal('to'), Type.Literal('cc'), Type.Literal('bcc')]),
        state: Type.Union(RECIPIENT_STATES.map((s) => Type.Literal(s))),
        reason: Type.String(),
        attempts: Type.Array(Attempt),
        next_attempt_at: Nullable(IsoDateTime),
      }),
    ),
    events: Type.Array(Type.Object({ type: Type.String(), at: IsoDateTime, recipient: Type.String(), detail: Type.String() })),
  }),
]);

/** A message as the log lists it (shared with the dashboard's /api/logs). */
export const listItem = (m: MessageLogEntry, recipientsCount: number) => ({
  id: m.id,
  status: m.status,
  subject: m.subject,
  from: m.fromEmail,
  from_name: m.fromName,
  to: m.to,
  reply_to: m.replyTo,
  recipients_count: recipientsCount,
  error: m.error,
  has_attachments: m.hasAttachments,
  sent_at: m.sentAt,
  created_at: m.createdAt,
});

function recipientDetail(r: LoggedRecipient, attempts: readonly DeliveryAttempt[]) {
  return {
    email: r.email,
    name: r.name,
    type: r.kind,
    state: r.state,
    reason: r.reason,
    attempts: attempts.filter((a) => a.recipientId === r.id).map((a) => ({ at: a.at, mx_host: a.mxHost, ip: a.ip, outcome: a.outcome, reply: a.reply })),
    next_attempt_at: r.nextAttemptAt && (r.state === 'deferred' || r.state === 'queued') ? new Date(r.nextAttemptAt).toISOString() : null,
  };
}

/** Events, oldest first: acceptance, then every attempt's outcome per recipient. */
function eventsOf(m: MessageLogEntry, recipients: readonly LoggedRecipient[], attempts: readonly DeliveryAttempt[]) {
  const byId = new Map(recipients.map((r) => [r.id, r.email]));
  const accepted = recipients.map((r) => ({
    type: r.state === 'suppressed' || (r.state === 'failed' && r.attempts === 0) ? r.state : 'queued',
    at: m.createdAt,
    recipient: r.email,
    detail: r.reason,
  }));
  const tried = attempts.map((a) => ({ type: a.outcome, at: a.at, recipient: byId.get(a.recipientId) ?? '', detail: a.reply }));
  return [...accepted, ...tried];
}

/** The full record of a message (shared with the dashboard's /api/logs/{log_hash}). */
export const messageDetail = ({ message: m, recipients, attempts }: LoggedMessage) => ({
  ...listItem(m, recipients.length),
  team_id: m.teamId,
  sending_key_id: m.sendingKeyId,
  message_id_header: m.messageIdHeader,
  size: m.size,
  source: m.source,
  headers: m.headers,
  recipients: recipients.map((r) => recipientDetail(r, attempts)),
  events: eventsOf(m, recipients, attempts),
});

const list = defineRoute({
  method: 'GET',
  path: '/v2/emails',
  summary: 'Message logs of the team, newest first',
  tag: 'Email logs',
  scopes: ['emails:read'],
  rate: 'writes-when-search',
  query: Type.Object({
    ...PageQuery,
    status: Type.Optional(
      Type.Union(
        MESSAGE_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Only messages with a recipient in this status (pending while in the queue)' },
      ),
    ),
    domain: Type.Optional(Type.String({ maxLength: 253, description: 'Domain name or id' })),
    from: Type.Optional(Type.String({ description: 'ISO 8601 lower bound of created_at (a date means its start)' })),
    to: Type.Optional(Type.String({ description: 'ISO 8601 upper bound of created_at (a date means its end)' })),
    search: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Whole words matched against subject, sender and recipients (a word ending in * matches as a prefix); total counts up to the paging depth',
      }),
    ),
  }),
  responses: { 200: { description: 'Messages', schema: ListEnvelope(MessageItem) } },
  async handle({ ctx, caller, query }) {
    const page = pageFrom(query, ctx.config);
    const {
      rows,
      total,
      recipientCounts: counts,
    } = valueOf(
      await ctx.core.messageLog.list(caller.acting, { ...page, status: query.status, domain: query.domain, from: query.from, to: query.to, search: query.search }),
    );
    return {
      body: envelope(
        rows.map((m) => listItem(m, counts.get(m.id) ?? 0)),
        total,
        page,
      ),
    };
  },
});

const read = defineRoute({
  method: 'GET',
  path: '/v2/emails/{message_id}',
  summary: 'One message: recipients with every delivery attempt, and its events',
  tag: 'Email logs',
  scopes: ['emails:read'],
  rate: null,
  params: Type.Object({ message_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  responses: { 200: { description: 'The full record', schema: DataOf(MessageDetail) }, 404: { description: 'No such message on this team' } },
  async handle({ ctx, caller, params }) {
    return { body: { data: messageDetail(valueOf(await ctx.core.messageLog.get(caller.acting, params.message_id))) } };
  },
});

export const emailRoutes: AnyRoute[] = [list, read];
