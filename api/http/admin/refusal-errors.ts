// What /v2 answers for each refusal of the core's management use cases, in the admin error shape. The only
// place a management refusal becomes an admin error.
import { adminError, type AdminError } from '../../../shared/errors.js';
import type { Managed, ManagementRefusal } from '../../../shared/core/management-refusals.js';

const LIMITS = {
  teams: 'An account can have at most {n} teams',
  webhooks: 'A team can have at most {n} webhooks',
  admin_keys: 'An account can hold at most {n} admin keys',
};

export function adminErrorFor(refusal: ManagementRefusal): AdminError {
  switch (refusal.kind) {
    case 'not_found':
      return adminError('not_found', refusal.message, refusal.field === undefined ? {} : { field: refusal.field });
    case 'invalid_domain':
      return adminError('invalid_domain', refusal.message, { field: 'name' });
    case 'invalid_url':
      return adminError('invalid_url', refusal.message, { field: 'url' });
    case 'invalid_field':
      return adminError('validation_failed', refusal.message, { field: refusal.field });
    case 'domain_exists':
      return adminError('domain_exists', `${refusal.name} already exists`);
    case 'credits_required':
      return adminError('credits_required', 'Sending from a subdomain requires credits on the account');
    case 'insufficient_credits':
      return adminError('validation_failed', `Not enough credits: the balance is ${refusal.balance}`, { field: refusal.field });
    case 'limit_reached':
      return adminError('limit_reached', LIMITS[refusal.what].replace('{n}', String(refusal.limit)), refusal.field === undefined ? {} : { field: refusal.field });
    case 'not_parent_account':
      return adminError('forbidden', 'Only the parent account can create teams');
    case 'forbidden':
      return adminError('forbidden', refusal.message);
    case 'suspended_by_platform':
      return adminError('suspended_by_platform', 'The platform suspended this team; only the platform can reactivate it', {}, { 'X-Account-Id': String(refusal.teamId) });
    case 'daily_limit_reached': {
      const limit = String(refusal.limit);
      const details = { used_today: limit, remaining_today: '0', daily_limit: limit };
      return adminError('daily_limit_reached', `The account has used its ${limit} suppression removals for today (UTC)`, details, {
        'Retry-After': String(refusal.retryAfterS),
      });
    }
    case 'rate_limited':
      return adminError('rate_limited', refusal.message, {}, { 'Retry-After': String(refusal.retryAfterS) });
    case 'system_mail_unavailable':
      return adminError('unavailable', refusal.reason);
    // Requeue is the platform operators' (dashboard and CLI); /v2 never meets it, but says it plainly.
    case 'suppressed_addresses':
      return adminError('validation_failed', `On the suppression list: ${refusal.emails.join(', ')}`);
    // Support tickets are the dashboard's; /v2 never meets them, but says it plainly.
    case 'ticket_state':
      return adminError('validation_failed', refusal.message);
    // Card payments are the dashboard's; /v2 never asks for them.
    case 'payments_offline':
    case 'payment_failed':
    case 'no_saved_card':
      return adminError('forbidden', 'Card payments are made through the dashboard');
  }
}

/** The use case's value, or its refusal thrown as the admin error the route answers with. */
export function valueOf<T>(managed: Managed<T>): T {
  if (!managed.ok) throw adminErrorFor(managed.refusal);
  return managed.value;
}
