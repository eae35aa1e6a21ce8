// The mail a ticket's opener gets when an operator answers: the ticket's title, the response's text, and where
// to read and reply (the dashboard's public URL, when configured). Sent by Tern itself (core/system-mail.ts);
// when Tern cannot send mail (no system sender, the opener's hourly allowance used) nothing else is affected.
import escapeHtml from 'escape-html';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Ticket, TicketResponse } from '../../domain/support.js';
import type { SystemMail, SystemMessage } from '../system-mail.js';

export function responseMessage(config: Config, ticket: Ticket, response: TicketResponse, to: string): SystemMessage {
  const base = config.dashboard.publicUrl;
  const link = base === null ? null : `${base.replace(/\/+$/, '')}/support/tickets/${ticket.id}`;
  const who = response.author?.name || 'An operator';
  const e = escapeHtml;
  return {
    to,
    subject: `Re: [Ticket #${ticket.id}] ${ticket.title}`.replace(/[\r\n]+/g, ' '),
    text: [`${who} answered your ticket "${ticket.title}":`, '', response.content, '', ...(link ? [`Read it and reply: ${link}`, ''] : [])].join('\n'),
    html: [
      '<!doctype html><html><body>',
      `<p>${e(who)} answered your ticket “${e(ticket.title)}”:</p>`,
      `<blockquote style="white-space: pre-wrap">${e(response.content)}</blockquote>`,
      ...(link ? [`<p><a href="${e(link)}">Read it and reply</a></p>`] : []),
      '</body></html>',
    ].join('\n'),
  };
}

export class ResponseMail {
  constructor(
    private readonly config: Config,
    private readonly systemMail: SystemMail,
  ) {}

  /** Whether the mail was handed to the intake. */
  async send(ticket: Ticket, response: TicketResponse, log: Logger): Promise<boolean> {
    if (!ticket.openedBy) return false;
    const sent = await this.systemMail.send(responseMessage(this.config, ticket, response, ticket.openedBy.email), log);
    if (!sent.ok) log.info({ ticket: ticket.id, refusal: sent.refusal.kind }, 'support response not mailed');
    return sent.ok;
  }
}
