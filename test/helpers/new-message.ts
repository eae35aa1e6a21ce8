// A message as the intake records it, for tests that write the log or the queue directly: plain defaults around
// the caller's team, domain, recipients and body.
import type { InsertOutcome, NewMessage, NewRecipient } from '../../shared/store/message-log.js';
import type { Store } from '../../shared/store/index.js';
import { recordOne } from '../../shared/intake/record.js';
import { figuresOfNew } from '../../shared/domain/figures.js';
import { messageStatusOf } from '../../shared/domain/queue-state.js';

export interface MessageParts {
  id: string;
  teamId: number;
  domainId: string | null;
  recipients: NewRecipient[];
  /** Default: a small text message naming the id. */
  body?: Buffer;
  /** Default: one credit per queued recipient, as the intake charges. */
  cost?: number;
}

export function newMessage(o: MessageParts): NewMessage {
  const body = o.body ?? Buffer.from(`Subject: ${o.id}\r\n\r\nbody\r\n`);
  const cost = o.cost ?? o.recipients.filter((r) => r.state === 'queued').length;
  return {
    id: o.id,
    teamId: o.teamId,
    payerId: o.teamId,
    domainId: o.domainId,
    sendingKeyId: null,
    source: 'http',
    envelopeFrom: 'a@one.test',
    fromEmail: 'a@one.test',
    fromName: '',
    subject: o.id,
    to: [],
    replyTo: null,
    messageIdHeader: `<${o.id}@one.test>`,
    size: body.length,
    hasAttachments: false,
    headers: {},
    recipients: o.recipients,
    body,
    cost,
    error: null,
    status: messageStatusOf(o.recipients.map((r) => r.state)),
    figures: figuresOfNew(
      o.id,
      o.recipients.map((r) => r.state),
    ),
  };
}

/** `count` queued To recipients, r0@dest.test, r1@dest.test, … */
export function queuedRecipients(count: number): NewRecipient[] {
  return Array.from({ length: count }, (_, i) => ({
    email: `r${i}@dest.test`,
    name: '',
    kind: 'to' as const,
    domain: 'dest.test',
    state: 'queued' as const,
    reason: '',
  }));
}

/** Records a message as the intake does (its credits taken in the same transaction). */
export function recordMessage(store: Store, message: NewMessage): Promise<InsertOutcome> {
  return recordOne(store.transaction, message);
}
