// Intake: the one path by which a message enters the queue, from SMTP submission or the HTTP sidecar.
// It decides each recipient's first state (queued, suppressed, disposable), records message, recipients,
// body and credits in one transaction (record.ts; committed and fsync'd), and only then enqueues them
// (queue/queue.ts). Whatever answers the client (250, 200) does so after accept() resolves.
import type { BodyHandOff } from './body-hand-off.js';
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/index.js';
import type { Queue } from '../queue/queue.js';
import type { NewMessage, NewRecipient } from '../store/message-log.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import type { RecipientKind } from '../domain/message-log.js';
import type { DisposableFilter } from './disposable.js';
import { screenAddress } from '../domain/screening.js';
import { figuresOfNew } from '../domain/figures.js';
import { messageStatusOf } from '../domain/queue-state.js';
import type { Logger } from '../log.js';
import { metrics } from '../metrics.js';
import { domainOfEmail } from '../email-address.js';
import { payerIdOf } from '../domain/team.js';
import { MessageRecorder } from './record.js';

export interface Recipient {
  email: string;
  name: string;
  kind: RecipientKind;
}

/** The log fields of a message, as the store records them. */
type LoggedFields =
  'sendingKeyId' | 'source' | 'envelopeFrom' | 'fromEmail' | 'fromName' | 'subject' | 'to' | 'replyTo' | 'messageIdHeader' | 'hasAttachments' | 'headers';

/** What the intake takes in: a message from SMTP submission or the HTTP sidecar, its sender already authorized. */
export interface IntakeMessage extends Pick<NewMessage, LoggedFields> {
  /** Preassigned when the composer needed it for the Message-ID header. */
  id?: string;
  team: Team;
  domain: Domain;
  recipients: Recipient[];
  /** The message as it will be signed and sent (Bcc already removed). */
  body: Buffer;
}

/** A message whose recipients have their first states, and so whose cost is known; not yet recorded. */
export interface Admitted {
  message: IntakeMessage;
  id: string;
  recipients: NewRecipient[];
  cost: number;
}

export type IntakeResult = { ok: true; messageId: string; queued: number } | { ok: false; reason: 'insufficient_balance' };

/** Time-ordered, unique and URL-safe: the message id clients see. */
export function newMessageId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

export class Intake {
  /** Messages accepted at the same moment (by several SMTP sessions and HTTP requests) share one transaction. */
  private readonly recorder: MessageRecorder;

  constructor(
    private readonly store: Store,
    private readonly queue: Queue,
    private readonly disposable: DisposableFilter,
    /** In the MTA, where a message's delivery reads the body it has just accepted (body-hand-off.ts). */
    private readonly handOff: BodyHandOff | null = null,
  ) {
    this.recorder = new MessageRecorder(store.transaction);
  }

  /**
   * The first half of taking a message in: each recipient's first state, and so the cost. Batches run this for all their
   * items at once and then `record` them in order, so that when credits run short it is always the later items
   * that are refused. The balance is checked only there, where the credits are taken in the same transaction.
   */
  async admit(m: IntakeMessage): Promise<Admitted> {
    const id = m.id ?? newMessageId();
    const recipients = await this.firstStates(m.team.id, m.recipients);
    const cost = recipients.filter((r) => r.state === 'queued').length;
    return { message: m, id, recipients, cost };
  }

  /**
   * The second half: message, recipients, body and credits in SQLite (the acknowledgement point), then the queue.
   * `log` is the caller's (an HTTP request's, an SMTP session's), so the acceptance line carries its id.
   */
  async record({ message: m, id, recipients, cost }: Admitted, log: Logger): Promise<IntakeResult> {
    const inserted = await this.recorder.record({
      id,
      teamId: m.team.id,
      payerId: payerIdOf(m.team),
      domainId: m.domain.id,
      sendingKeyId: m.sendingKeyId,
      source: m.source,
      envelopeFrom: m.envelopeFrom,
      fromEmail: m.fromEmail,
      fromName: m.fromName,
      subject: m.subject,
      to: m.to,
      replyTo: m.replyTo,
      messageIdHeader: m.messageIdHeader,
      size: m.body.length,
      hasAttachments: m.hasAttachments,
      headers: m.headers,
      recipients,
      body: m.body,
      cost,
      error: cost ? null : unsendableReason(recipients),
      status: messageStatusOf(recipients.map((r) => r.state)),
      figures: figuresOfNew(
        id,
        recipients.map((r) => r.state),
      ),
    });
    if (inserted === 'insufficient_balance') return { ok: false, reason: 'insufficient_balance' };
    log.info({ msg_id: id, team: m.team.id, source: m.source, recipients: recipients.length, queued: cost }, 'message accepted');
    metrics.messagesAccepted.inc({ source: m.source });
    if (cost > 0) this.handOff?.keep(id, m.body); // committed: before it is due, so its delivery finds it
    await this.queue.enqueue(id, inserted);
    return { ok: true, messageId: id, queued: cost };
  }

  /** Suppressed and disposable recipients are recorded but never sent, and cost nothing. Duplicates are dropped. */
  private async firstStates(teamId: number, list: readonly Recipient[]): Promise<NewRecipient[]> {
    // A duplicate address is dropped; its first occurrence (and so its to/cc/bcc) stays.
    const firsts = new Map<string, Recipient>();
    for (const r of list) if (!firsts.has(r.email.toLowerCase())) firsts.set(r.email.toLowerCase(), r);
    const unique = [...firsts.entries()];
    const suppressed = await this.store.suppressions.suppressedAmong(
      teamId,
      unique.map(([email]) => email),
    );
    const out: NewRecipient[] = [];
    for (const [email, r] of unique) {
      const domain = domainOfEmail(email);
      const base = { email: r.email, name: r.name, kind: r.kind, domain };
      const screening = screenAddress(domain, suppressed.has(email), this.disposable);
      if (screening === 'disposable') out.push({ ...base, state: 'failed', reason: 'disposable address: not sent' });
      else if (screening === 'suppressed') out.push({ ...base, state: 'suppressed', reason: 'on the suppression list' });
      else out.push({ ...base, state: 'queued', reason: '' });
    }
    return out;
  }
}

function unsendableReason(recipients: readonly NewRecipient[]): string {
  if (recipients.every((r) => r.state === 'suppressed')) return 'every recipient is on the suppression list';
  return 'no recipient can be sent to: every recipient is invalid, disposable or suppressed';
}
