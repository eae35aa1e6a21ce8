// Mail Tern sends itself (invitations, DNS instructions): one message composed by nodemailer's composer, from
// the system sender (the configuration's systemMail.from, else the one an operator chose on the dashboard, stored
// as a platform setting: docs/decisions.md "Issue 22 item 7"), submitted through the intake every message takes (recorded on the team that
// owns the sender's domain with source `system`, durable before this returns, DKIM-signed and delivered by the
// MTA). Refused, with nothing recorded, when no sender is configured or its domain is not verified, and when
// the recipient has had systemMail.perRecipientPerHour such messages in the last hour.
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import { emailKey } from '../domain/user.js';
import { newMessageId, type Intake } from '../intake/intake.js';
import { domainOfEmail } from '../email-address.js';
import { hitWindow } from '../rate-limit.js';
import { redisKeys } from '../redis-keys.js';
import { sha256Hex } from '../sha256.js';
import type { Operator } from '../domain/user.js';
import type { StoredSystemSender } from '../store/system.js';
import { done, notFound, refuse, type Managed, type ManagementRefusal } from './management-refusals.js';
import { auditEntry } from './audit-log.js';
import type { EmailTemplates } from './email-templates.js';
import type { EmailId } from '../domain/email-templates.js';

export interface SystemMessage {
  /** One recipient, already checked as an address. */
  to: string;
  subject: string;
  text: string;
  /** Every value placed in it already escaped by the caller. */
  html: string;
  /** The display name instead of systemMail.fromName (the email layout's). */
  fromName?: string;
  /** Where replies go (the email layout's). */
  replyTo?: string;
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

/** Where the sender in use comes from: the configuration (file or TERNMAIL_SYSTEM_MAIL_FROM) wins over the
 * dashboard's stored choice. */
export type SystemSenderSource = 'config' | 'dashboard';

/** What the operator's pages show of Tern's own mail. */
export interface SystemSenderSetup {
  /** The sender in use and where it is set; null when none is. */
  current: { address: string; source: SystemSenderSource } | null;
  /** Why Tern cannot send its own mail now, in the operator's words; null when it can. */
  problem: string | null;
  /** The first verified domain's address, offered in one click; null when the configuration sets the sender or
   * Tern can send already (or no domain is verified yet). */
  offer: { domainNumber: number; domainName: string; address: string } | null;
}

const HOUR_S = 3600;
/** The local part offered for the system sender on a verified domain. */
const OFFERED_LOCAL_PART = 'noreply';

/** The sentences end users read (an invitation, a reset, "Email the records"): what happened and whom to ask,
 * never a setting's name; the operator's pages say what to do (setup()). */
const USER_REASONS = {
  none: 'Tern cannot send email yet: the platform’s operator has not chosen the address Tern sends from. Ask them to set it up, then try again.',
  unverified: 'Tern cannot send email now: the domain Tern sends from is not verified. Ask the platform’s operator, then try again.',
  suspended: 'Tern cannot send email now: the account Tern sends from is suspended. Ask the platform’s operator, then try again.',
} as const;

const unavailable = <T>(reason: string): SystemMailResult<T> => ({ ok: false, refusal: { kind: 'system_mail_unavailable', reason } });

export class SystemMail {
  constructor(
    private readonly d: SystemMailDeps,
    /** The intake core/sending uses: a system message enters the queue the way every message does. */
    private readonly intake: Intake,
    /** The wording operators gave each email (their defaults where they gave none). */
    readonly templates: EmailTemplates,
  ) {}

  /** Email `id` to `to`, its smartcodes filled with `values`; undefined when an operator turned it off. */
  compose(id: EmailId, to: string, values: Readonly<Record<string, string>>): Promise<SystemMessage | undefined> {
    return this.templates.compose(id, to, values);
  }

  /** As compose, for an email that cannot be turned off. */
  async composeRequired(id: EmailId, to: string, values: Readonly<Record<string, string>>): Promise<SystemMessage> {
    const message = await this.templates.compose(id, to, values);
    if (!message) throw new Error(`the email ${id} cannot be off`);
    return message;
  }

  /** The sender in use: the configuration's, else the one stored from the dashboard; null when neither is set. */
  async current(): Promise<SystemSenderSetup['current']> {
    const configured = this.d.config.systemMail.from;
    if (configured !== null) return { address: configured, source: 'config' };
    const stored = await this.d.store.system.systemSender();
    return stored && { address: stored.address, source: 'dashboard' };
  }

  /** The sender in use, when it can send now: its domain verified, its team active. */
  async sender(): Promise<SystemMailResult<SystemSender>> {
    const found = await this.usable();
    return found.ok ? found : unavailable(USER_REASONS[found.why]);
  }

  private async usable(): Promise<{ ok: true; value: SystemSender } | { ok: false; why: keyof typeof USER_REASONS; address: string | null }> {
    const current = await this.current();
    if (current === null) return { ok: false, why: 'none', address: null };
    const domain = await this.d.store.domains.findByName(domainOfEmail(current.address));
    if (!domain || domain.verificationStatus !== 'verified') return { ok: false, why: 'unverified', address: current.address };
    const team = await this.d.store.teams.get(domain.teamId);
    if (!team || team.status === 'suspended') return { ok: false, why: 'suspended', address: current.address };
    return { ok: true, value: { address: current.address, name: this.d.config.systemMail.fromName, team, domain } };
  }

  /** What the operator's pages show: the sender in use, what stops it, and the first verified domain offered. */
  async setup(): Promise<SystemSenderSetup> {
    const current = await this.current();
    const found = await this.usable();
    if (found.ok) return { current, problem: null, offer: null };
    const problem = {
      none: 'Tern cannot send its own mail yet (invitations, password resets, DNS records by email, low-credit notices): no system sender is chosen.',
      unverified: `Tern cannot send its own mail: the domain of its sender ${found.address ?? ''} is not a verified domain.`,
      suspended: `Tern cannot send its own mail: the team that owns the domain of its sender ${found.address ?? ''} is suspended.`,
    }[found.why];
    // The configuration wins: a stored choice would not be used, so none is offered.
    if (current?.source === 'config') return { current, problem: `${problem} It is set by TERNMAIL_SYSTEM_MAIL_FROM (systemMail.from).`, offer: null };
    const [first] = (await this.d.store.adminDomains.list({ status: 'verified' }, { page: 1, perPage: 1 })).rows;
    const offer = first ? { domainNumber: first.number, domainName: first.name, address: `${OFFERED_LOCAL_PART}@${first.name}` } : null;
    return { current, problem, offer };
  }

  /**
   * The operator's one click: Tern's own mail is sent from noreply@ the verified domain numbered `domainNumber`,
   * stored as a platform setting with its audit entry. Refused when the configuration sets the sender (it would
   * win over the stored one) or the domain is not verified.
   */
  async useDomain(operator: Operator, domainNumber: number, at: string, log: Logger): Promise<Managed<StoredSystemSender>> {
    if (this.d.config.systemMail.from !== null) {
      return refuse({ kind: 'forbidden', message: 'Tern’s sender is set by TERNMAIL_SYSTEM_MAIL_FROM (systemMail.from), which the dashboard cannot change.' });
    }
    const domain = await this.d.store.adminDomains.get(domainNumber);
    if (!domain) return notFound('domain', 'Domain not found', 'domain');
    if (domain.verificationStatus !== 'verified') {
      return refuse({ kind: 'invalid_field', field: 'domain', message: `${domain.name} is not verified yet: Tern can send only from a verified domain.` });
    }
    const sender: StoredSystemSender = { address: `${OFFERED_LOCAL_PART}@${domain.name}`, setBy: operator.id, at };
    await this.d.store.system.setSystemSender(sender, (before) =>
      auditEntry(
        operator,
        {
          action: 'system_mail.sender',
          target: { kind: 'platform', id: 'system_mail.from' },
          before: before && { address: before.address },
          after: { address: sender.address, domain: domain.name, team_id: domain.teamId },
          reason: '',
        },
        at,
      ),
    );
    log.info({ by: operator.id, address: sender.address, domain: domain.id }, 'system sender chosen');
    return done(sender);
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
    const { team, domain, address } = sender;
    const name = m.fromName ?? sender.name;
    const id = newMessageId();
    const messageIdHeader = `<${id}@${domain.name}>`;
    const composer = new MailComposer({
      from: { name, address },
      to: m.to,
      ...(m.replyTo === undefined ? {} : { replyTo: m.replyTo }),
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
      replyTo: m.replyTo ?? null,
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
