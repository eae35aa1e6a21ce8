// The mails of two-step sign-in and lockouts: the one-time code a user types after their password (with where
// the sign-in came from, so a reader who did not sign in knows their password is known), and the notice an
// account's owners get when an email of theirs is locked out.
import escapeHtml from 'escape-html';
import type { SystemMessage } from '../system-mail.js';

const minutesUntil = (expiresAt: string, now: number): number => Math.max(1, Math.round((Date.parse(expiresAt) - now) / 60_000));

export function twoStepCodeMail(m: { to: string; code: string; expiresAt: string; from: string; now: number }): SystemMessage {
  const minutes = minutesUntil(m.expiresAt, m.now);
  const e = escapeHtml;
  return {
    to: m.to,
    subject: `Your Tern sign-in code: ${m.code}`,
    text: [
      'Hello,',
      '',
      `Your sign-in code is ${m.code}`,
      '',
      `It works once, for ${minutes} minutes. The sign-in came from the address ${m.from}.`,
      'If that was not you, someone knows your password: change it now.',
      '',
    ].join('\n'),
    html: [
      '<!doctype html><html><body>',
      '<p>Hello,</p>',
      `<p>Your sign-in code is <b style="font-size:1.4em;letter-spacing:0.15em">${e(m.code)}</b></p>`,
      `<p>It works once, for ${minutes} minutes. The sign-in came from the address ${e(m.from)}.</p>`,
      '<p>If that was not you, someone knows your password: change it now.</p>',
      '</body></html>',
    ].join('\n'),
  };
}

export function lockoutMail(m: { to: string; lockedEmail: string; address: string; windowMinutes: number }): SystemMessage {
  const e = escapeHtml;
  return {
    to: m.to,
    subject: `Tern: sign-in to ${m.lockedEmail} locked after failed attempts`,
    text: [
      'Hello,',
      '',
      `Too many failed sign-ins to ${m.lockedEmail} (the last from the address ${m.address}): further attempts are refused for up to ${m.windowMinutes} minutes.`,
      'The auth log of your account lists every attempt.',
      '',
    ].join('\n'),
    html: [
      '<!doctype html><html><body>',
      '<p>Hello,</p>',
      `<p>Too many failed sign-ins to <b>${e(m.lockedEmail)}</b> (the last from the address ${e(m.address)}): further attempts are refused for up to ${m.windowMinutes} minutes.</p>`,
      '<p>The auth log of your account lists every attempt.</p>',
      '</body></html>',
    ].join('\n'),
  };
}
