// The mail a ticket's opener gets when an operator answers: the ticket's title, the response's text, and where
// to read and reply (the dashboard's public URL, when configured), worded by the `support_response` email
// template. Sent by Tern itself (core/system-mail.ts); when Tern cannot send mail (no system sender, the
// opener's hourly allowance used) or an operator turned the email off, nothing else is affected.
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Ticket, TicketResponse } from '../../domain/support.js';
import type { SystemMail } from '../system-mail.js';

/** The support response's smartcodes. */
export function responseValues(config: Config, ticket: Ticket, response: TicketResponse): Record<string, string> {
  const base = config.dashboard.publicUrl;
  return {
    'ticket.id': String(ticket.id),
    'ticket.title': ticket.title,
    'ticket.url': base === null ? '' : `${base.replace(/\/+$/, '')}/support/tickets/${ticket.id}`,
    'response.author': response.author?.name || 'An operator',
    'response.content': response.content,
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
    const message = await this.systemMail.compose('support_response', ticket.openedBy.email, responseValues(this.config, ticket, response));
    if (!message) return false;
    const sent = await this.systemMail.send(message, log);
    if (!sent.ok) log.info({ ticket: ticket.id, refusal: sent.refusal.kind }, 'support response not mailed');
    return sent.ok;
  }
}
