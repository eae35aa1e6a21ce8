// Builds the RFC 5322 message of an HTTP send with nodemailer's composer (never by concatenation). A text
// part is generated from the html when only html is given.
import MailComposer from 'nodemailer/lib/mail-composer';
import { convert } from 'html-to-text';
import type { SendRequest } from './request.js';
import { domainOfEmail } from '../../../shared/email-address.js';

const asAddress = (a: { email: string; name: string }) => ({ address: a.email, name: a.name });

export interface Composed {
  body: Buffer;
  messageIdHeader: string;
}

export async function composeMessage(r: SendRequest, messageId: string): Promise<Composed> {
  const fromDomain = domainOfEmail(r.from.email);
  const messageIdHeader = `<${messageId}@${fromDomain}>`;
  const text = r.text ?? (r.html ? convert(r.html, { wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }] }) : undefined);
  const composer = new MailComposer({
    from: asAddress(r.from),
    to: r.to.map(asAddress),
    cc: r.cc.length ? r.cc.map(asAddress) : undefined,
    // Bcc recipients are in the envelope only; the composer leaves the header out.
    bcc: r.bcc.length ? r.bcc.map(asAddress) : undefined,
    replyTo: r.replyTo ? asAddress(r.replyTo) : undefined,
    subject: r.subject,
    text,
    html: r.html,
    headers: r.headers,
    attachments: r.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    messageId: messageIdHeader,
    date: new Date(),
  });
  const body = await composer.compile().build();
  return { body, messageIdHeader };
}
