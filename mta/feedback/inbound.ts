// The MX listener: the only mail this host takes in is reports about its own mail, sent to the signed VERP
// return paths (bounces+<token>@send.<domain>) or to the feedback-loop address on the public host name.
// Everything else is refused at RCPT, so the port can never relay. A report is recorded in the store with its
// body before the 250 (not in this machine's files: any MTA's report worker may apply it), then a report
// worker applies it: a crash between the two loses nothing, nor does the loss of this machine.
import type { TlsPairs } from '../../shared/tls.js';
import { randomBytes } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { answer, isListening, listenSmtp } from '../../shared/smtp-listen.js';
import type { Runtime } from '../../shared/runtime/runtime.js';
import { parseVerp } from '../../shared/verp.js';
import { RETURN_PATH_LABEL } from '../../shared/dns-records.js';
import { metrics } from '../../shared/metrics.js';

export const MAX_REPORT_BYTES = 10 * 1024 * 1024;
/** A report goes to one return path; a few more recipients are tolerated, not hundreds. */
export const MAX_REPORT_RECIPIENTS = 10;

export type RefusalReason = 'relay' | 'unknown_recipient' | 'forged_verp';

const reply = (code: number, text: string): Error => Object.assign(new Error(text), { responseCode: code });

function refuse(reason: RefusalReason, text: string): Error {
  metrics.mxRcptRefused.inc({ reason });
  return reply(550, `5.7.1 ${text}`);
}

/** Report ids sort by arrival (a time prefix), then at random: unique across MTAs without asking the store. */
export const newReportId = (): string => `${Date.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;

export interface MxListenerDeps {
  rt: Runtime;
  tls: TlsPairs;
  verpSecret: Buffer;
  /** Called after each accepted report, so the worker need not wait for its next poll. */
  onReport(): void;
}

export class MxListener {
  private server: SMTPServer | null = null;
  private readonly fblAddress: string;

  constructor(private readonly d: MxListenerDeps) {
    this.fblAddress = `${d.rt.config.feedback.fblLocalPart}@${d.rt.config.publicHostname}`.toLowerCase();
  }

  async listen(port = this.d.rt.config.smtp.mxPort, host = '0.0.0.0'): Promise<void> {
    const server = this.create();
    server.on('error', (err: Error) => this.d.rt.log.warn({ err: err.message, port }, 'mx session error'));
    await listenSmtp(server, port, host);
    this.server = server;
    this.d.rt.log.info({ port, fbl: this.fblAddress }, 'mx listener listening');
  }

  /** Whether the MX port is bound and accepting (the MTA's readiness). */
  listening(): boolean {
    return this.server !== null && isListening(this.server);
  }

  reloadCertificate(tls: TlsPairs): void {
    this.server?.updateSecureContext(tls);
  }

  /** Stops accepting connections; sessions under way get `graceMs` to finish. */
  async close(graceMs = 10_000): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), graceMs);
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private create(): SMTPServer {
    return new SMTPServer({
      secure: false,
      key: this.d.tls.key,
      cert: this.d.tls.cert,
      name: this.d.rt.config.publicHostname,
      banner: 'Tern ESMTP bounce and feedback host',
      size: MAX_REPORT_BYTES,
      authOptional: true,
      disabledCommands: ['AUTH'],
      logger: false,
      maxClients: 200,
      socketTimeout: 60_000,
      closeTimeout: 30_000,
      onConnect: (_session, cb) => {
        metrics.smtpSessions.inc({ listener: 'mx' });
        cb();
      },
      onRcptTo: (address, session, cb) => answer(this.onRcptTo(address, session), cb, (err) => this.refusal(err, 'RCPT')),
      onData: (stream, session, cb) => answer(this.onData(stream, session), cb, (err) => this.refusal(err, 'DATA')),
    });
  }

  /** Our own trouble (the store) is a 4xx: the reporting MTA keeps the report and retries. */
  private refusal(err: Error, command: string): Error {
    if ((err as { responseCode?: number }).responseCode) return err;
    this.d.rt.log.warn({ err: err.message, command }, 'mx command failed on a local error');
    return reply(451, '4.3.0 Temporary local problem, try again later');
  }

  private async onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    if (session.envelope.rcptTo.length >= MAX_REPORT_RECIPIENTS) throw reply(452, `4.5.3 Too many recipients (at most ${MAX_REPORT_RECIPIENTS})`);
    await this.checkRecipient(address.address);
  }

  /** Accepts the feedback-loop address and VERP addresses of live domains whose token verifies; nothing else. */
  private async checkRecipient(address: string): Promise<void> {
    const email = address.trim().toLowerCase();
    if (email === this.fblAddress) return;
    const at = email.lastIndexOf('@');
    const local = email.slice(0, at);
    const domain = email.slice(at + 1);
    if (domain === this.d.rt.config.publicHostname) throw refuse('unknown_recipient', 'No such recipient here');
    const prefix = `${RETURN_PATH_LABEL}.`;
    const base = at > 0 && domain.startsWith(prefix) ? domain.slice(prefix.length) : '';
    if (!base || !(await this.d.rt.store.domains.findByName(base))) throw refuse('relay', 'Relaying denied: this host accepts only reports about its own mail');
    if (!local.startsWith('bounces+')) throw refuse('unknown_recipient', 'No such recipient here');
    if (parseVerp(email, this.d.verpSecret) === null) throw refuse('forged_verp', 'Unknown or forged bounce address');
  }

  private async onData(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const raw = await readAll(stream);
    if (stream.sizeExceeded) throw reply(552, `5.3.4 Report too big (at most ${MAX_REPORT_BYTES} bytes)`);
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    // One report per recipient: each is matched and finished on its own. All are recorded in one write, or none.
    const reports = session.envelope.rcptTo.map((rcpt) => ({ id: newReportId(), mailFrom, rcptTo: rcpt.address }));
    await this.d.rt.store.feedback.addReports(reports, raw);
    const ids = reports.map((r) => r.id);
    this.d.rt.log.info({ ids, mailFrom, rcpt: session.envelope.rcptTo.map((r) => r.address), size: raw.length }, 'report received');
    this.d.onReport();
    return `2.0.0 Ok: report accepted as ${ids.join(', ')}`;
  }
}

/** Past the size limit the rest is drained but not kept (the answer is 552). */
async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) if (!stream.sizeExceeded) chunks.push(chunk);
  return Buffer.concat(chunks);
}
