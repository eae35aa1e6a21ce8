// Sending a message, whichever interface it came through: the sender's From address is authorized, the
// message is admitted (each recipient's first state, and so its cost) and recorded by the intake, which is
// the point where it is acknowledged. Batches admit every item first and record them in order.
import type { Admitted, Intake, IntakeMessage } from '../../intake/intake.js';
import type { Domain } from '../../domain/sending-domain.js';
import type { Logger } from '../../log.js';
import type { SenderAuthorization, Sender } from './sender-authorization.js';
import { allowed, refused, type Decision } from './refusals.js';

export { newMessageId } from '../../intake/intake.js';
export type { Admitted, Recipient } from '../../intake/intake.js';

/** A message as an interface built it, before the sender's team and domain are attached. */
export type MessageDraft = Omit<IntakeMessage, 'team' | 'domain' | 'sendingKeyId'>;

export interface Recorded {
  messageId: string;
  /** Recipients queued for delivery (the others were suppressed, disposable or invalid). */
  queued: number;
}

export class MessageSending {
  constructor(
    private readonly senders: SenderAuthorization,
    private readonly intake: Intake,
  ) {}

  /** The From address checked for this sender: the domain the message will be signed for. */
  async fromDomain(sender: Sender, fromAddress: string): Promise<Decision<Domain>> {
    const decision = await this.senders.authorize(sender, fromAddress);
    return decision.ok ? allowed(decision.value.domain!) : decision;
  }

  /** Admits a message already authorized for `domain`; nothing is recorded yet. */
  admit(sender: Sender, domain: Domain, draft: MessageDraft): Promise<Admitted> {
    return this.intake.admit({ ...draft, team: sender.team, domain, sendingKeyId: sender.sendingKeyId });
  }

  /** Records an admitted message: credits, recipients and body committed together, then scheduled. */
  async record(admitted: Admitted, log: Logger): Promise<Decision<Recorded>> {
    const result = await this.intake.record(admitted, log);
    return result.ok ? allowed({ messageId: result.messageId, queued: result.queued }) : refused({ kind: 'insufficient_balance' });
  }

  /** Admits and records one message. */
  async send(sender: Sender, domain: Domain, draft: MessageDraft, log: Logger): Promise<Decision<Recorded>> {
    return this.record(await this.admit(sender, domain, draft), log);
  }
}
