// One send: validate, check the From domain against the team's verified domains and the key's
// restriction, compose, and hand the message to the intake (the same path as SMTP).
import { SendError } from '../../shared/errors.js';
import { domainOfEmail } from '../../shared/email-address.js';
import { hitRateLimit } from '../../shared/rate-limit.js';
import { newMessageId, type Admitted } from '../../intake/intake.js';
import type { AppContext } from '../context.js';
import type { Sender } from './auth.js';
import { parseSendRequest, type SendRequest } from './request.js';

const validation = (errors: Record<string, Record<string, string>>) => new SendError(422, 'validation_error', 'The request is not valid', errors);

/** account.limit_per_second, counted per account in Redis across every process. */
export async function takeSendRate(ctx: AppContext, sender: Sender): Promise<void> {
  const root = sender.team.parentId === null ? sender.team : await ctx.store.accounts.get(sender.rootId);
  const limit = root?.limitPerSecond ?? ctx.config.accounts.defaultLimitPerSecond;
  const decision = await hitRateLimit(ctx.redis, sender.rootId, 'send', limit, 1);
  if (!decision.allowed) {
    throw new SendError(429, 'rate_limited', `Sending rate of ${limit} messages per second exceeded`, { account: { rate_limited: 'slow down and retry' } }, { 'Retry-After': '1' });
  }
}

async function verifiedDomain(ctx: AppContext, sender: Sender, from: string) {
  const domain = await ctx.store.domains.findByName(domainOfEmail(from));
  if (!domain || domain.accountId !== sender.team.id || domain.verificationStatus !== 'verified') {
    throw validation({ from: { domain_not_verified: `${domainOfEmail(from)} is not a verified domain of this team` } });
  }
  if (sender.onlyDomainId !== null && sender.onlyDomainId !== domain.id) {
    throw validation({ from: { domain_not_allowed: `This key may only send from its own domain, not ${domain.name}` } });
  }
  return domain;
}

const recipientsOf = (r: SendRequest) => [
  ...r.to.map((a) => ({ email: a.email, name: a.name, kind: 'to' as const })),
  ...r.cc.map((a) => ({ email: a.email, name: a.name, kind: 'cc' as const })),
  ...r.bcc.map((a) => ({ email: a.email, name: a.name, kind: 'bcc' as const })),
];

/** Headers shown in the message log: the client's own ones, never the body. */
const loggedHeaders = (r: SendRequest): Record<string, string> => ({ ...r.headers });

const insufficientBalance = () =>
  new SendError(403, 'forbidden', 'Not enough credits', { account: { insufficient_balance: 'The account has not enough credits for this message' } });

/** Validates, composes and admits one send request: everything but recording it. */
export async function admitSend(ctx: AppContext, sender: Sender, body: unknown): Promise<Admitted> {
  const parsed = parseSendRequest(body);
  if (!parsed.ok) throw validation(parsed.errors);
  const r = parsed.request;
  const domain = await verifiedDomain(ctx, sender, r.from.email);
  const id = newMessageId();
  const composed = await ctx.composer.compose(r, id);
  return ctx.intake.admit({
    id,
    team: sender.team,
    domain,
    sendingKeyId: sender.sendingKeyId,
    source: 'http',
    envelopeFrom: r.from.email,
    fromEmail: r.from.email,
    fromName: r.from.name,
    subject: r.subject,
    to: r.to.map((a) => (a.name ? { email: a.email, name: a.name } : { email: a.email })),
    replyTo: r.replyTo ? (r.replyTo.name ? `${r.replyTo.name} <${r.replyTo.email}>` : r.replyTo.email) : null,
    messageIdHeader: composed.messageIdHeader,
    hasAttachments: r.attachments.length > 0,
    headers: loggedHeaders(r),
    recipients: recipientsOf(r),
    body: composed.body,
  });
}

/** Records an admitted send: the point where it is acknowledged. */
export async function recordSend(ctx: AppContext, admitted: Admitted): Promise<{ message_id: string }> {
  const result = await ctx.intake.record(admitted);
  if (!result.ok) throw insufficientBalance();
  return { message_id: result.messageId };
}

export async function sendOne(ctx: AppContext, sender: Sender, body: unknown): Promise<{ message_id: string }> {
  return recordSend(ctx, await admitSend(ctx, sender, body));
}
