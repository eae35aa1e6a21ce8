// One send request: validate it, take the From domain from the core's sender rules, compose the MIME
// message, and hand it to the core's sending use case (the same path as SMTP).
import { SendError } from '../../../shared/errors.js';
import { newMessageId, type Admitted } from '../../../shared/core/sending/send-message.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Logger } from '../../../shared/log.js';
import type { Sender } from './auth.js';
import { parseSendRequest, type SendRequest } from './request.js';
import { sendErrorFor } from './refusal-errors.js';

const validation = (errors: Record<string, Record<string, string>>) => new SendError(422, 'validation_error', 'The request is not valid', errors);

/** account.limit_per_second, counted per account in Redis across every process. */
export async function takeSendRate(ctx: AppContext, sender: Sender): Promise<void> {
  const decision = await ctx.core.senders.takeSendRate(sender);
  if (!decision.ok) throw sendErrorFor(decision.refusal);
}

const recipientsOf = (r: SendRequest) => [
  ...r.to.map((a) => ({ email: a.email, name: a.name, kind: 'to' as const })),
  ...r.cc.map((a) => ({ email: a.email, name: a.name, kind: 'cc' as const })),
  ...r.bcc.map((a) => ({ email: a.email, name: a.name, kind: 'bcc' as const })),
];

const replyToOf = (r: SendRequest): string | null => (r.replyTo ? (r.replyTo.name ? `${r.replyTo.name} <${r.replyTo.email}>` : r.replyTo.email) : null);

/** Validates, composes and admits one send request: everything but recording it. */
export async function admitSend(ctx: AppContext, sender: Sender, body: unknown): Promise<Admitted> {
  const parsed = parseSendRequest(body);
  if (!parsed.ok) throw validation(parsed.errors);
  const r = parsed.request;
  const domain = await ctx.core.sending.fromDomain(sender, r.from.email);
  if (!domain.ok) throw sendErrorFor(domain.refusal);
  const id = newMessageId();
  const composed = await ctx.composer.compose(r, id);
  return ctx.core.sending.admit(sender, domain.value, {
    id,
    source: 'http',
    envelopeFrom: r.from.email,
    fromEmail: r.from.email,
    fromName: r.from.name,
    subject: r.subject,
    to: r.to.map((a) => (a.name ? { email: a.email, name: a.name } : { email: a.email })),
    replyTo: replyToOf(r),
    messageIdHeader: composed.messageIdHeader,
    hasAttachments: r.attachments.length > 0,
    // Headers shown in the message log: the client's own ones, never the body.
    headers: { ...r.headers },
    recipients: recipientsOf(r),
    body: composed.body,
  });
}

/** Records an admitted send: the point where it is acknowledged. */
export async function recordSend(ctx: AppContext, admitted: Admitted, log: Logger): Promise<{ message_id: string }> {
  const recorded = await ctx.core.sending.record(admitted, log);
  if (!recorded.ok) throw sendErrorFor(recorded.refusal);
  return { message_id: recorded.value.messageId };
}

export async function sendOne(ctx: AppContext, sender: Sender, body: unknown, log: Logger): Promise<{ message_id: string }> {
  return recordSend(ctx, await admitSend(ctx, sender, body), log);
}
