// One synthetic message of one recipient as the store's log loader writes it (store/log-loader.ts): the
// shape the log benchmarks (admin, stats, pages) share, with only what differs between them given.
import type { LoadedMessage } from '../shared/store/log-loader.js';
import type { MessageStatus, RecipientState } from '../shared/domain/queue-state.js';

export interface SyntheticMessage {
  /** Its number in the run: part of its id. */
  i: number;
  teamId: number;
  domainId: string | null;
  sendingKeyId: number | null;
  subject: string;
  /** The one recipient. */
  email: string;
  status: MessageStatus;
  recipientState: RecipientState;
  createdMs: number;
  /** The end of the loaded window: a deferred recipient's next attempt is after it. */
  endMs: number;
  size?: number;
}

const delivered = (s: MessageStatus) => s === 'sent' || s === 'complained' || s === 'bounced';

export function loadedMessage(m: SyntheticMessage): LoadedMessage {
  const created = new Date(m.createdMs).toISOString();
  const id = `${m.createdMs.toString(36).padStart(9, '0')}${m.i.toString(16).padStart(10, '0')}`;
  return {
    id,
    teamId: m.teamId,
    domainId: m.domainId,
    sendingKeyId: m.sendingKeyId,
    source: 'http',
    envelopeFrom: 'news@example.com',
    fromEmail: 'news@example.com',
    fromName: 'Example',
    subject: m.subject,
    to: [{ email: m.email }],
    replyTo: null,
    messageIdHeader: `<${id}@example.com>`,
    size: m.size ?? 2000,
    hasAttachments: false,
    headers: {},
    status: m.status,
    error: m.status === 'failed' ? 'expired: too long in the queue' : null,
    createdAt: created,
    sentAt: delivered(m.status) ? new Date(m.createdMs + 2000).toISOString() : null,
    updatedAt: created,
    recipients: [
      {
        email: m.email,
        name: '',
        kind: 'to',
        domain: m.email.slice(m.email.indexOf('@') + 1),
        state: m.recipientState,
        reason: m.recipientState === 'deferred' ? '451 4.7.1 try again later' : '',
        nextAttemptAt: m.recipientState === 'deferred' ? m.endMs + 3_600_000 : null,
        queuedAt: m.createdMs,
        updatedAt: created,
      },
    ],
  };
}
