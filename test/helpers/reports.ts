// Bounce and complaint reports for tests: the fixtures of test/fixtures/reports rewritten to be about a real
// delivered message, and delivered to the MX port the way a reporting MTA would (test/helpers/smtp-raw.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawSmtp, type SmtpReply } from './smtp-raw.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'reports');
// The values the fixtures were written with, replaced by those of a real message.
export const FIXTURE_VERP = 'bounces+2s-5f1c0a9e3b7d24c6e8a1@send.example.com';
export const FIXTURE_RCPT = 'bob@dest.test';
export const FIXTURE_MESSAGE_ID = '<0m5xk2p9qa1b2c3d4e5f6a7b8@example.com>';

/** The delivered copy a report is about. */
export interface ReportedCopy {
  /** The recipient's address. */
  email: string;
  /** The VERP return path the receiving MTA saw. */
  verp: string;
  /** The Message-ID header of the copy, with its angle brackets. */
  messageIdHeader: string;
}

/** A fixture report about `sent`: its VERP address, recipient and Message-ID put in. */
export function reportAbout(file: string, sent: ReportedCopy): string {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .replaceAll(FIXTURE_VERP, sent.verp)
    .replaceAll(FIXTURE_RCPT, sent.email)
    .replaceAll(FIXTURE_MESSAGE_ID, sent.messageIdHeader);
}

/** A reply as one line of text, its code first ("250 2.0.0 Ok: queued"). */
const asText = (reply: SmtpReply): string => `${reply.code} ${reply.text}`;

/** A message body as DATA sends it: CRLF line ends, leading dots doubled, then the lone dot. */
function dataSection(body: string): Buffer {
  const crlf = body.replace(/\r?\n/g, '\r\n').replace(/\r\n$/, '');
  return Buffer.from(`${crlf.replace(/^\./gm, '..')}\r\n.\r\n`, 'utf8');
}

/**
 * One report delivered as a reporting MTA would: null sender, one recipient, DATA. Returns the reply that
 * ended the transaction: the refusal of RCPT TO or DATA, or the reply to the end of the data.
 */
export async function deliverReport(port: number, rcpt: string, body: string, mailFrom = ''): Promise<string> {
  const { smtp } = await RawSmtp.open(port, false);
  try {
    await smtp.command('EHLO mail.dest.test');
    await smtp.command(`MAIL FROM:<${mailFrom}>`);
    const rcptReply = await smtp.command(`RCPT TO:<${rcpt}>`);
    if (rcptReply.code !== 250) return asText(rcptReply);
    const started = await smtp.command('DATA');
    if (started.code !== 354) return asText(started);
    await smtp.write(dataSection(body));
    return asText(await smtp.next());
  } finally {
    await smtp.quit();
  }
}
