// What the sending interface (POST /v2/emails) answers for each refusal of the core, in its error shape
// {status_code, error_type, message, errors: {field: {code: text}}}. The only place a sender refusal
// becomes an HTTP sending error.
import { SendError } from '../../../shared/errors.js';
import type { SenderRefusal } from '../../../shared/core/sending/refusals.js';

const invalidKey = (text: string) => new SendError(403, 'forbidden', 'Invalid API key', { api_key: { invalid: text } });

export function sendErrorFor(refusal: SenderRefusal): SendError {
  switch (refusal.kind) {
    case 'no_key':
      return new SendError(401, 'unauthorized', 'No API key supplied', { api_key: { required: 'Send a key as Authorization: Bearer <key> or api_key' } });
    case 'invalid_key':
      return invalidKey(refusal.detail);
    case 'admin_key_in_body':
      return invalidKey('Admin keys are accepted only in the Authorization header');
    case 'insufficient_scope':
      return new SendError(403, 'forbidden', `This key lacks the ${refusal.requiredScope} scope`, {
        api_key: { insufficient_scope: `This admin key lacks the ${refusal.requiredScope} scope`, required_scope: refusal.requiredScope },
      });
    case 'team_out_of_reach':
      return new SendError(404, 'not_found', 'Team not found', { account_id: { not_found: 'X-Account-Id names no team this key reaches' } });
    case 'team_suspended':
      return new SendError(403, 'forbidden', 'The team is suspended and cannot send', { account: { suspended: 'This team is suspended; sending is stopped' } });
    case 'domain_not_verified':
      return new SendError(422, 'validation_error', 'The request is not valid', {
        from: { domain_not_verified: `${refusal.domain} is not a verified domain of this team` },
      });
    case 'domain_not_allowed':
      return new SendError(422, 'validation_error', 'The request is not valid', {
        from: { domain_not_allowed: `This key may only send from its own domain, not ${refusal.domain}` },
      });
    case 'rate_limited':
      return new SendError(
        429,
        'rate_limited',
        `Sending rate of ${refusal.limitPerSecond} messages per second exceeded`,
        { account: { rate_limited: 'slow down and retry' } },
        {
          'Retry-After': String(refusal.retryAfterS),
        },
      );
    case 'insufficient_balance':
      return new SendError(403, 'forbidden', 'Not enough credits', { account: { insufficient_balance: 'The account has not enough credits for this message' } });
  }
}
