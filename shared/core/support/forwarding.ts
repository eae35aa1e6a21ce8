// Forwarding tickets to the external helpdesk: drains the support outbox (written in the ticket's or response's
// transaction while a forwarding URL is set). Each row is leased in the store (the UPDATE is fenced on the lease,
// so several API processes drain together), POSTed signed by the Standard Webhooks scheme through the SSRF-safe
// POST (the address is checked after resolving, at each attempt), then marked delivered, or due again after a
// doubling delay, or failed once the attempts or the age run out.
import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { SecretBox } from '../../secret-box.js';
import type { Store } from '../../store/index.js';
import type { ForwardOutcome } from '../../store/support.js';
import type { SupportForward, SupportPerson, SupportSettings, Ticket, TicketResponse } from '../../domain/support.js';
import { safePost, type PostOutcome } from '../../safe-http.js';
import { standardWebhookHeaders } from '../../webhook-signing.js';

export interface ForwardingDeps {
  store: Store;
  config: Config;
  secrets: SecretBox;
  resolver: Resolver;
}

export const FORWARD_USER_AGENT = 'Tern-Support-Forwarding/1.0';
const BATCH = 16;
// Longer than a batch can take (16 attempts one after the other, each within its timeout, at most 60 s): a
// dispatcher that dies leaves its rows to be taken over when the lease runs out.
const LEASE_MS = 20 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** A person as the helpdesk sees them: id, name and kind, never an email (an operator's is not shown outside). */
const personOf = (p: SupportPerson | null, kind: 'customer' | 'agent') => (p ? { id: p.id, name: p.name, kind } : null);

/** The JSON body of one forward: what happened, the ticket, and the response when it is one. */
export function forwardBody(f: SupportForward, ticket: Ticket, response: TicketResponse | null, sentAt: string): string {
  return JSON.stringify({
    type: f.kind,
    ticket: {
      id: ticket.id,
      team_id: ticket.teamId,
      title: ticket.title,
      content: ticket.content,
      status: ticket.status,
      product: ticket.product,
      priority: ticket.priority,
      author: personOf(ticket.openedBy, 'customer'),
      created_at: ticket.createdAt,
    },
    ...(response
      ? { response: { id: response.id, content: response.content, author: personOf(response.author, response.authorKind), created_at: response.createdAt } }
      : {}),
    sent_at: sentAt,
  });
}

const failure = (o: PostOutcome): string | null => {
  if (o.kind !== 'response') return o.reason;
  if (o.statusCode >= 200 && o.statusCode < 300) return null;
  return o.error ?? `HTTP ${o.statusCode}`;
};

export class SupportForwarding {
  private ca: string[] | undefined | null = null;

  constructor(private readonly d: ForwardingDeps) {}

  /** One round: claims the due forwards and tries each once; how many were tried. Failures are outcomes, logged. */
  async drain(log: Logger): Promise<number> {
    const now = Date.now();
    const token = randomBytes(12).toString('hex');
    const rows = await this.d.store.support.claimForwards(BATCH, iso(now), iso(now + LEASE_MS), token);
    if (!rows.length) return 0;
    const settings = await this.d.store.support.settings();
    for (const row of rows) {
      const outcome = await this.attempt(row, settings);
      const kept = await this.d.store.support.finishForward(row.id, token, outcome);
      log.info(
        { forward: row.id, ticket: row.ticketId, outcome: outcome.kind, error: outcome.kind === 'delivered' ? null : outcome.error, kept },
        'support forward attempt',
      );
    }
    return rows.length;
  }

  private async attempt(row: SupportForward, settings: SupportSettings): Promise<ForwardOutcome> {
    // Turned off after the row was written: nothing to send it to, and the secret it would be signed with is gone.
    if (settings.forwardUrl === null || settings.forwardSecretEnc === null) return { kind: 'failed', error: 'forwarding was turned off' };
    const ticket = await this.d.store.support.getTicket(row.ticketId);
    const response = row.responseId === null ? null : ((await this.d.store.support.responsesOf(row.ticketId)).find((r) => r.id === row.responseId) ?? null);
    if (!ticket || (row.responseId !== null && !response)) return { kind: 'failed', error: 'the ticket or response is gone' };
    let secret: string;
    try {
      secret = this.d.secrets.open(settings.forwardSecretEnc);
    } catch (err) {
      return { kind: 'failed', error: `secret unreadable: ${(err as Error).message}` };
    }
    const body = forwardBody(row, ticket, response, new Date().toISOString());
    const ca = this.caList();
    const posted = await safePost(this.d.resolver, {
      url: settings.forwardUrl,
      // Stable across retries, so the helpdesk can drop a copy it already has.
      headers: standardWebhookHeaders(secret, `fwd_${row.id}`, body, FORWARD_USER_AGENT),
      body,
      timeoutMs: this.d.config.support.forwarding.timeoutMs,
      allowPrivate: this.d.config.webhooks.allowPrivate,
      ...(ca ? { ca } : {}),
    });
    const error = failure(posted);
    return error === null ? { kind: 'delivered' } : this.retryOrFail(row, error);
  }

  /** The next attempt after retryBaseMs doubling per attempt made; failed after maxAttempts or maxAgeHours. */
  private retryOrFail(row: SupportForward, error: string): ForwardOutcome {
    const { retryBaseMs, maxAttempts, maxAgeHours } = this.d.config.support.forwarding;
    const made = row.attempts + 1;
    const next = Date.now() + retryBaseMs * 2 ** row.attempts;
    if (made >= maxAttempts) return { kind: 'failed', error: `${error} (gave up after ${made} attempts)` };
    if (next > Date.parse(row.createdAt) + maxAgeHours * 3_600_000) return { kind: 'failed', error: `${error} (gave up after ${maxAgeHours} h)` };
    return { kind: 'retry', at: iso(next), error };
  }

  /** The CAs trusted for https helpdesks: the system roots plus webhooks.caFile (private PKI, tests), read once. */
  private caList(): string[] | undefined {
    if (this.ca === null) {
      const file = this.d.config.webhooks.caFile;
      this.ca = file ? [...rootCertificates, readFileSync(file, 'utf8')] : undefined;
    }
    return this.ca;
  }
}
