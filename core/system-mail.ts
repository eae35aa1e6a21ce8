// Mail Tern sends itself (invitations, DNS instructions): one message composed by nodemailer's composer, from
// the configured system sender, submitted through the intake every message takes (recorded on the team that
// owns the sender's domain with source `system`, durable before this returns, DKIM-signed and delivered by the
// MTA). Refused, with nothing recorded, when no sender is configured or its domain is not verified, and when
// the recipient has had systemMail.perRecipientPerHour such messages in the last hour.
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Redis } from 'ioredis';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import { emailKey } from '../domain/user.js';
import { newMessageId, type Intake } from '../intake/intake.js';
import { domainOfEmail } from '../shared/email-address.js';
import { hitWindow } from '../shared/rate-limit.js';
import { redisKeys } from '../shared/redis-keys.js';
import { sha256Hex } from '../shared/sha256.js';
import type { ManagementRefusal } from './management-refusals.js';

export interface SystemMessage {
  /** One recipient, already checked as an address. */
  to: string;
  subject: string;
  text: string;
  /** Every value placed in it already escaped by the caller. */
  html: string;
}

export interface SentSystemMail {
  messageId: string;
  /** The team the message is recorded on (the owner of the sender's domain). */
  teamId: number;
  /** False when the recipient is suppressed on that team (or disposable): recorded, not sent. */
  queued: boolean;
}

export type SystemMailRefusal = Extract<ManagementRefusal, { kind: 'system_mail_unavailable' | 'rate_limited' }>;
export type SystemMailResult<T> = { ok: true; value: T } | { ok: false; refusal: SystemMailRefusal };

export interface SystemSender {
  address: string;
  name: string;
  team: Team;
  domain: Domain;
}

export interface SystemMailDeps {
  store: Store;
  redis: Redis;
  config: Config;
}

const HOUR_S = 3600;

const unavailable = <T>(reason: string): SystemMailResult<T> => ({ ok: false, refusal: { kind: 'system_mail_unavailable', reason } });

export class SystemMail {
  constructor(
    private readonly d: SystemMailDeps,
    /** The intake core/sending uses: a system message enters the queue the way every message does. */
    private readonly intake: Intake,
  ) {}

  /** The configured sender, when it can send now: its domain verified, its team active. */
  async sender(): Promise<SystemMailResult<SystemSender>> {
    const { from, fromName } = this.d.config.systemMail;
    if (from === null) return unavailable('Tern has no system sender: the operator must set systemMail.from to an address on a verified domain.');
    const domain = await this.d.store.domains.findByName(domainOfEmail(from));
    if (!domain || domain.verificationStatus !== 'verified') {
      return unavailable(`The system sender's domain ${domainOfEmail(from)} is not a verified domain; the operator must verify it.`);
    }
    const team = await this.d.store.teams.get(domain.teamId);
    if (!team || team.status === 'suspended') return unavailable("The system sender's team cannot send now.");
    return { ok: true, value: { address: from, name: fromName, team, domain } };
  }

  /** Composes and submits one message from the configured sender; its id once it is recorded. */
  async send(m: SystemMessage, log: Logger): Promise<SystemMailResult<SentSystemMail>> {
    const sender = await this.sender();
    return sender.ok ? this.sendAs(sender.value, m, log) : sender;
  }

  /**
   * What send answers, without sending anything: the sender checked and the recipient's hourly allowance taken
   * as send takes them, and a message id that names no message. For mail that must not go (an invitation to
   * someone who already uses Tern elsewhere) where the caller's answer must not differ from a sent one's.
   */
  async withhold(m: SystemMessage): Promise<SystemMailResult<SentSystemMail>> {
    const sender = await this.sender();
    if (!sender.ok) return sender;
    const limited = await this.takeRecipient(m.to);
    if (limited) return limited;
    return { ok: true, value: { messageId: newMessageId(), teamId: sender.value.team.id, queued: false } };
  }

  /** The recipient's hourly allowance of mail from Tern, taken; the refusal once it is used up. */
  private async takeRecipient(to: string): Promise<SystemMailResult<never> | undefined> {
    const limit = this.d.config.systemMail.perRecipientPerHour;
    const rate = await hitWindow(this.d.redis, redisKeys.systemMail('recipient', sha256Hex(emailKey(to))), limit, HOUR_S);
    if (rate.allowed) return undefined;
    const message = `At most ${limit} messages from Tern to one address in an hour; try again later.`;
    return { ok: false, refusal: { kind: 'rate_limited', message, retryAfterS: rate.resetS } };
  }

  /** As send, from a sender the caller has just looked up with sender(). */
  async sendAs(sender: SystemSender, m: SystemMessage, log: Logger): Promise<SystemMailResult<SentSystemMail>> {
    const limited = await this.takeRecipient(m.to);
    if (limited) return limited;
    const { team, domain, address, name } = sender;
    const id = newMessageId();
    const messageIdHeader = `<${id}@${domain.name}>`;
    const composer = new MailComposer({
      from: { name, address },
      to: m.to,
      subject: m.subject,
      text: m.text,
      html: m.html,
      messageId: messageIdHeader,
      date: new Date(),
      // RFC 3834: no auto-responder should answer it.
      headers: { 'Auto-Submitted': 'auto-generated' },
    });
    const body = await composer.compile().build();
    const admitted = await this.intake.admit({
      id,
      team,
      domain,
      sendingKeyId: null,
      source: 'system',
      envelopeFrom: address,
      fromEmail: address,
      fromName: name,
      subject: m.subject,
      to: [{ email: m.to }],
      replyTo: null,
      messageIdHeader,
      hasAttachments: false,
      headers: {},
      recipients: [{ email: m.to, name: '', kind: 'to' }],
      body,
    });
    const recorded = await this.intake.record(admitted, log);
    if (!recorded.ok) return unavailable("The system sender's account has no credits left.");
    return { ok: true, value: { messageId: recorded.messageId, teamId: team.id, queued: recorded.queued > 0 } };
  }
}
