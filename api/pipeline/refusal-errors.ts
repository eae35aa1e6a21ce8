// What the dashboard answers for each refusal of the core's management use cases, in WordPress's shape. The
// only place a management refusal becomes a dashboard error (as api/http/admin/refusal-errors.ts is for /v2), shared with the pages.
import type { Managed, ManagementRefusal } from '../../shared/core/management-refusals.js';
import { dashboardError, tooManyRequests, type DashboardError } from './dashboard-errors.js';

const LIMITS = {
  teams: 'An account can have at most {n} teams.',
  webhooks: 'A team can have at most {n} webhooks.',
  admin_keys: 'An account can hold at most {n} admin keys.',
};

/** A refused field, worded as WordPress words an invalid param: data.params and data.details name it. */
export function invalidParam(field: string, code: string, message: string): DashboardError {
  return dashboardError('rest_invalid_param', `Invalid parameter(s): ${field}`, {
    params: { [field]: message },
    details: { [field]: { code, message, data: null } },
  });
}

export function dashboardErrorFor(refusal: ManagementRefusal): DashboardError {
  switch (refusal.kind) {
    case 'not_found':
      return dashboardError(`rest_${refusal.what}_invalid_id`, refusal.message);
    case 'invalid_domain':
      return invalidParam('name', 'rest_invalid_domain', refusal.message);
    case 'invalid_url':
      return invalidParam('url', 'rest_invalid_url', refusal.message);
    case 'invalid_field':
      return invalidParam(refusal.field, 'rest_invalid_param', refusal.message);
    case 'domain_exists':
      return dashboardError('rest_domain_exists', `${refusal.name} already exists.`);
    case 'credits_required':
      return dashboardError('rest_credits_required', 'Sending from a subdomain requires credits on the account.');
    case 'insufficient_credits':
      return dashboardError('rest_insufficient_credits', `Not enough credits: the balance is ${refusal.balance}.`, {
        balance: refusal.balance,
        params: { [refusal.field]: 'more than the balance' },
      });
    case 'limit_reached':
      return dashboardError('rest_limit_reached', LIMITS[refusal.what].replace('{n}', String(refusal.limit)), { limit: refusal.limit });
    case 'not_parent_account':
      return dashboardError('rest_forbidden', 'Only the parent account can create teams.');
    case 'forbidden':
      return dashboardError('rest_forbidden', refusal.message);
    case 'suspended_by_platform':
      return dashboardError('rest_team_suspended', 'The platform suspended this team; only the platform can reactivate it.');
    case 'daily_limit_reached':
      return tooManyRequests(`The account has used its ${refusal.limit} suppression removals for today (UTC).`, refusal.retryAfterS);
    case 'rate_limited':
      return tooManyRequests(refusal.message, refusal.retryAfterS);
    case 'system_mail_unavailable':
      return dashboardError('rest_system_mail_unavailable', refusal.reason);
    case 'payments_offline':
      return dashboardError('rest_payments_offline', 'This platform takes no card payments: credits are granted by the platform.');
    case 'payment_failed':
      return dashboardError('rest_payment_failed', refusal.reason);
    case 'no_saved_card':
      return dashboardError('rest_no_saved_card', 'The account has no saved card: save one first.');
    case 'ticket_state':
      return dashboardError(refusal.closed ? 'rest_support_ticket_closed' : 'rest_support_ticket_not_closed', refusal.message);
    case 'suppressed_addresses':
      return dashboardError('rest_suppressed_addresses', `Not sent again: on the suppression list: ${refusal.emails.join(', ')}.`, { emails: refusal.emails });
  }
}

/** The use case's value, or its refusal thrown as the dashboard error the route answers with. */
export function valueOf<T>(managed: Managed<T>): T {
  if (!managed.ok) throw dashboardErrorFor(managed.refusal);
  return managed.value;
}
