// SMTP submission: smtp-server on the STARTTLS and implicit-TLS ports. AUTH (PLAIN, LOGIN) only over TLS,
// the password being a sending key; no relay without it. Each refusal carries its SMTP reply code here,
// where the decision is made. Accepted messages go through the same intake as HTTP sends.
import type { TlsPairs } from '../../shared/tls.js';
import { type SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { answer, isListening, listenSmtp } from '../../shared/smtp-listen.js';
import { PromptGreetingSmtpServer } from '../../shared/prompt-greeting.js';
import type { AddressObject } from 'mailparser';
import { parseLogFields, type LogFields } from './log-fields.js';
import type { Runtime } from '../../shared/runtime/runtime.js';
import type { Logger } from '../../shared/log.js';
import type { Core } from '../../shared/core/index.js';
import type { Domain } from '../../shared/domain/sending-domain.js';
import type { Sender } from '../../shared/core/sending/sender-authorization.js';
import { newMessageId, type Recipient } from '../../shared/core/sending/send-message.js';
import { domainOfEmail, isValidEmail } from '../../shared/email-address.js';
import { smtpRefusal } from './refusal-replies.js';
import { canonicaliseHeaders } from './message-headers.js';
import { metrics } from '../../shared/metrics.js';

export const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
export const MAX_RECIPIENTS = 100;
interface SmtpSender {
  sender: Sender;
  /** The envelope sender's domain, checked at MAIL FROM; DATA reuses it when the From header agrees. */
  envelopeDomain?: Domain;
  /** Bound to the SMTP session's id, so that what the core logs for this session can be told apart. */
  log: Logger;
}

const reply = (code: number, text: string): Error => Object.assign(new Error(text), { responseCode: code });

/** The SMTP submission listeners (STARTTLS and implicit TLS ports) and their sessions. */
export class SubmissionListener {
  private readonly servers: SMTPServer[] = [];
  private readonly senders = new Map<string, SmtpSender>();

  constructor(
    private readonly rt: Runtime,
    private readonly core: Core,
    private readonly tls: TlsPairs,
  ) {}

  async listen(host = '0.0.0.0'): Promise<void> {
    const { starttlsPorts, tlsPorts } = this.rt.config.smtp;
    for (const port of starttlsPorts) await this.open(port, false, host);
    for (const port of tlsPorts) await this.open(port, true, host);
  }

  /** Whether every configured port is bound and accepting (the MTA's readiness). */
  listening(): boolean {
    const { starttlsPorts, tlsPorts } = this.rt.config.smtp;
    return this.servers.length === starttlsPorts.length + tlsPorts.length && this.servers.every(isListening);
  }

  reloadCertificate(tls: TlsPairs): void {
    for (const server of this.servers) server.updateSecureContext(tls);
  }

  /** Stops accepting connections; sessions under way get `graceMs` to finish. */
  async close(graceMs = 10_000): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => resolve(), graceMs);
            s.close(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
  }

  private async open(port: number, secure: boolean, host: string): Promise<void> {
    const server = new PromptGreetingSmtpServer({
      secure,
      key: this.tls.key,
      cert: this.tls.cert,
      name: this.rt.config.publicHostname,
      banner: 'Tern ESMTP submission',
      size: MAX_MESSAGE_BYTES,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: false,
      authOptional: false,
      disabledCommands: [],
      logger: false,
      maxClients: 1000,
      socketTimeout: 120_000,
      closeTimeout: 30_000,
      onAuth: (auth, session, cb) =>
        void this.onAuth(auth, session).then(
          (user) => cb(null, { user }),
          (err: Error) => cb(this.refusal(err, 'AUTH')),
        ),
      onMailFrom: (address, session, cb) => answer(this.onMailFrom(address, session), cb, (err) => this.refusal(err, 'MAIL')),
      onRcptTo: (address, session, cb) => answer(this.onRcptTo(address, session), cb, (err) => this.refusal(err, 'RCPT')),
      onData: (stream, session, cb) => answer(this.onData(stream, session), cb, (err) => this.refusal(err, 'DATA')),
      onConnect: (_session, cb) => {
        metrics.smtpSessions.inc({ listener: secure ? 'tls' : 'starttls' });
        cb();
      },
      onClose: (session) => void this.senders.delete(session.id),
    });
    server.on('error', (err: Error) => this.rt.log.warn({ err: err.message, port }, 'smtp session error'));
    await listenSmtp(server, port, host);
    this.rt.log.info({ port, implicitTls: secure }, 'smtp submission listening');
    this.servers.push(server);
  }

  /**
   * A refusal decided here carries its code. Anything else (Redis or SQLite unavailable) is our own passing
   * trouble: a 4xx, so the client keeps the message and retries, never smtp-server's default 550.
   */
  private refusal(err: Error, command: string): Error {
    if ((err as { responseCode?: number }).responseCode) return err;
    this.rt.log.warn({ err: err.message, command }, 'smtp command failed on a local error');
    if (command === 'AUTH') return reply(454, '4.7.0 Temporary authentication failure, try again later');
    return reply(451, '4.3.0 Temporary local problem, try again later');
  }

  private async onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession): Promise<string> {
    if (!session.secure) throw reply(538, '5.7.11 Encryption required for requested authentication mechanism');
    const identified = await this.core.senders.identify({ key: auth.password ?? '', carriedIn: 'smtp_auth' });
    if (!identified.ok) throw smtpRefusal(identified.refusal);
    this.senders.set(session.id, { sender: identified.value, log: this.rt.log.child({ smtp_session: session.id }) });
    return String(identified.value.sendingKeyId);
  }

  private session(session: SMTPServerSession): SmtpSender {
    const smtp = this.senders.get(session.id);
    if (!smtp) throw reply(530, '5.7.0 Authentication required');
    return smtp;
  }

  /** The core's sender rules for this address; the session keeps the sender as last read. */
  private async authorized(smtp: SmtpSender, address: string, role: 'Sender' | 'From'): Promise<Domain> {
    const decision = await this.core.senders.authorize(smtp.sender, address);
    if (!decision.ok) throw smtpRefusal(decision.refusal, role);
    smtp.sender = decision.value.sender;
    return decision.value.domain!;
  }

  private async onMailFrom(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const smtp = this.session(session);
    if (!isValidEmail(address.address)) throw reply(553, '5.1.7 Invalid sender address');
    smtp.envelopeDomain = await this.authorized(smtp, address.address, 'Sender');
    const rate = await this.core.senders.takeSendRate(smtp.sender);
    if (!rate.ok) throw smtpRefusal(rate.refusal);
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a phase handler like the others: a refusal is a rejection (see open())
  private async onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    this.session(session);
    if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) throw reply(452, `4.5.3 Too many recipients (at most ${MAX_RECIPIENTS} per message)`);
    if (!isValidEmail(address.address)) throw reply(553, '5.1.3 Invalid recipient address');
  }

  private async onData(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const smtp = this.session(session);
    const raw = await readAll(stream);
    if (stream.sizeExceeded) throw reply(552, `5.3.4 Message too big (at most ${MAX_MESSAGE_BYTES} bytes)`);
    const parsed = await parseLogFields(raw);
    const from = parsed.from?.value[0];
    if (!from?.address || !isValidEmail(from.address)) throw reply(550, '5.7.1 The message needs a valid From header');
    // The team was found active at MAIL FROM, moments ago; the From domain is checked again only when it differs.
    const sameDomain = smtp.envelopeDomain?.name === domainOfEmail(from.address);
    const domain = sameDomain && smtp.envelopeDomain ? smtp.envelopeDomain : await this.authorized(smtp, from.address, 'From');
    const id = newMessageId();
    const edited = canonicaliseHeaders(raw, () => `<${id}@${domain.name}>`);
    const result = await this.core.sending.send(
      smtp.sender,
      domain,
      {
        id,
        source: 'smtp',
        envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : from.address,
        fromEmail: from.address,
        fromName: from.name ?? '',
        subject: parsed.subject ?? '',
        to: addresses(parsed.to).map((a) => (a.name ? a : { email: a.email })),
        replyTo: parsed.replyTo?.text ?? null,
        messageIdHeader: edited.messageIdHeader,
        hasAttachments: parsed.hasAttachments,
        headers: loggedHeaders(parsed.headerLines),
        recipients: recipientsOf(session, parsed),
        body: edited.body,
      },
      smtp.log,
    );
    if (!result.ok) throw smtpRefusal(result.refusal);
    return `2.0.0 Ok: queued as ${result.value.messageId}`;
  }
}

/** Past the size limit the message is refused (552): what was read is dropped and the rest drained unkept, so an endless DATA costs no memory. */
async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (stream.sizeExceeded) chunks.length = 0;
    else chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function addresses(field: AddressObject | AddressObject[] | undefined): Array<{ email: string; name: string }> {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list
    .flatMap((f) => f.value)
    .filter((a) => a.address)
    .map((a) => ({ email: a.address!, name: a.name ?? '' }));
}

/** Envelope recipients, named To or Cc when the headers list them, Bcc otherwise. */
function recipientsOf(session: SMTPServerSession, parsed: LogFields): Recipient[] {
  const to = new Map(addresses(parsed.to).map((a) => [a.email.toLowerCase(), a.name]));
  const cc = new Map(addresses(parsed.cc).map((a) => [a.email.toLowerCase(), a.name]));
  return session.envelope.rcptTo.map((r) => {
    const key = r.address.toLowerCase();
    if (to.has(key)) return { email: r.address, name: to.get(key) ?? '', kind: 'to' };
    if (cc.has(key)) return { email: r.address, name: cc.get(key) ?? '', kind: 'cc' };
    return { email: r.address, name: '', kind: 'bcc' };
  });
}

const LOGGED = new Set(['list-unsubscribe', 'list-unsubscribe-post', 'reply-to', 'x-mailer', 'in-reply-to', 'references']);

function loggedHeaders(lines: ReadonlyArray<{ key: string; line: string }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, line } of lines) if (LOGGED.has(key) || key.startsWith('x-')) out[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 1).trim();
  return out;
}
