// What SMTP answers for each refusal of the core: reply code, enhanced status and text. The only place a
// sender refusal becomes an SMTP reply.
import type { SenderRefusal } from '../../shared/core/sending/refusals.js';

export interface SmtpReply {
  code: number;
  text: string;
}

/** `role` names the address checked: the envelope sender at MAIL FROM, the From header at DATA. */
export function smtpReplyFor(refusal: SenderRefusal, role: 'Sender' | 'From' = 'Sender'): SmtpReply {
  switch (refusal.kind) {
    case 'no_key':
      return { code: 530, text: '5.7.0 Authentication required' };
    case 'invalid_key':
    case 'admin_key_in_body':
    case 'team_out_of_reach':
      return { code: 535, text: '5.7.8 Authentication credentials invalid: use a sending key as the password' };
    case 'insufficient_scope':
      return { code: 535, text: `5.7.8 Authentication credentials invalid: the key lacks the ${refusal.requiredScope} scope` };
    case 'team_suspended':
      return { code: 550, text: '5.7.1 This team is suspended and cannot send' };
    case 'domain_not_verified':
      return { code: 550, text: `5.7.1 ${role} domain ${refusal.domain} is not a verified domain of this team` };
    case 'domain_not_allowed':
      return { code: 550, text: `5.7.1 This key may not send from ${refusal.domain}` };
    case 'rate_limited':
      return { code: 451, text: `4.7.1 Sending rate of ${refusal.limitPerSecond} messages per second exceeded, try again shortly` };
    case 'insufficient_balance':
      return { code: 550, text: '5.7.1 Not enough credits on the account' };
  }
}

/** The reply as smtp-server takes it: an Error carrying responseCode. */
export function smtpRefusal(refusal: SenderRefusal, role?: 'Sender' | 'From'): Error {
  const reply = smtpReplyFor(refusal, role);
  return Object.assign(new Error(reply.text), { responseCode: reply.code });
}
