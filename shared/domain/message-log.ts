// The message log: an accepted message, its recipients and every delivery attempt, as the application reads them.
import type { MessageStatus, RecipientState } from './queue-state.js';

export const RECIPIENT_KINDS = ['to', 'cc', 'bcc'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];
/** `system`: a message Tern sent itself (an invitation, DNS instructions), through the same intake. */
export const MESSAGE_SOURCES = ['http', 'smtp', 'system'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];
export const ATTEMPT_OUTCOMES = ['delivered', 'deferred', 'bounced', 'failed'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface Addressee {
  email: string;
  name?: string;
}

export interface MessageLogEntry {
  id: string;
  /** The team that sent it. */
  teamId: number;
  domainId: string | null;
  sendingKeyId: number | null;
  source: MessageSource;
  envelopeFrom: string;
  fromEmail: string;
  fromName: string;
  subject: string;
  /** The To addressees as the sender gave them. */
  to: Addressee[];
  replyTo: string | null;
  messageIdHeader: string;
  size: number;
  hasAttachments: boolean;
  status: MessageStatus;
  error: string | null;
  createdAt: string;
  sentAt: string | null;
  updatedAt: string;
}

/** A listed message with its integer number: the platform operators' `log_id` (the id stays the message's name). */
export interface NumberedLogEntry extends MessageLogEntry {
  logId: number;
}

/** One message in full: what the log lists, and the custom headers the sender asked for. */
export interface MessageLogDetail extends MessageLogEntry {
  headers: Record<string, string>;
}

export interface LoggedRecipient {
  id: number;
  messageId: string;
  email: string;
  name: string;
  kind: RecipientKind;
  domain: string;
  state: RecipientState;
  reason: string;
  /** Delivery attempts made so far. */
  attempts: number;
  /** When the next attempt is due (epoch ms), while it waits in the queue. */
  nextAttemptAt: number | null;
  lastReply: string | null;
  /** When it entered the queue (epoch ms). */
  queuedAt: number;
  updatedAt: string;
}

export interface DeliveryAttempt {
  recipientId: number;
  at: string;
  mxHost: string | null;
  ip: string | null;
  outcome: AttemptOutcome;
  reply: string;
}
