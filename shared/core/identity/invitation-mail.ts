// The layout every invitation mail shares (an account's user, a new client account's owner): a greeting, what is
// offered, the link to accept it and choose a password, and until when it works. Each caller words the offer.
import escapeHtml from 'escape-html';
import type { SystemMessage } from '../system-mail.js';

export interface InvitationMail {
  to: string;
  subject: string;
  /** The offer as plain text, and as HTML with every value already escaped by the caller. */
  offerText: string;
  offerHtml: string;
  link: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export function invitationMail(m: InvitationMail): SystemMessage {
  const until = `${m.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
  const e = escapeHtml;
  return {
    to: m.to,
    subject: m.subject,
    text: ['Hello,', '', m.offerText, 'Accept the invitation and choose your password here:', '', m.link, '', `The link works once, until ${until}.`, ''].join('\n'),
    html: [
      '<!doctype html><html><body>',
      '<p>Hello,</p>',
      `<p>${m.offerHtml}</p>`,
      `<p><a href="${e(m.link)}">Accept the invitation and choose your password</a></p>`,
      `<p>The link works once, until ${e(until)}.</p>`,
      '</body></html>',
    ].join('\n'),
  };
}
