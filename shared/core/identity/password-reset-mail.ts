// The mail a forgot-password request sends: for which account, the link to choose a new password, until when it
// works, from which address it was asked for, and what to do when the reader did not ask (nothing).
import escapeHtml from 'escape-html';
import type { SystemMessage } from '../system-mail.js';

export interface PasswordResetMail {
  to: string;
  link: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
  /** The client address the request came from, so the reader can tell it was not them. */
  requestedFrom: string;
}

export function passwordResetMail(m: PasswordResetMail): SystemMessage {
  const until = `${m.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
  const e = escapeHtml;
  return {
    to: m.to,
    subject: 'Reset your Tern password',
    text: [
      'Hello,',
      '',
      `Someone asked to reset the password of the Tern account ${m.to} (from the address ${m.requestedFrom}).`,
      'Choose a new password here:',
      '',
      m.link,
      '',
      `The link works once, until ${until}.`,
      'If you did not ask for this, ignore this mail: your password stays as it is.',
      '',
    ].join('\n'),
    html: [
      '<!doctype html><html><body>',
      '<p>Hello,</p>',
      `<p>Someone asked to reset the password of the Tern account <b>${e(m.to)}</b> (from the address ${e(m.requestedFrom)}).</p>`,
      `<p><a href="${e(m.link)}">Choose a new password</a></p>`,
      `<p>The link works once, until ${e(until)}.</p>`,
      '<p>If you did not ask for this, ignore this mail: your password stays as it is.</p>',
      '</body></html>',
    ].join('\n'),
  };
}
