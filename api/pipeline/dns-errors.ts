// A refusal of core.dnsConnections as an error, in one table: the dashboard's /api-keys/verify-connect routes answer
// it and the Domains page words and statuses its refusal with it, so the two say the same thing.
import { dashboardError, type DashboardError } from './dashboard-errors.js';
import { invalidParam } from './refusal-errors.js';
import type { DnsConnectionRefusal } from '../../shared/core/dns-connection.js';

/** What the dashboard answers for each refusal of core.dnsConnections. */
export function dnsErrorFor(refusal: DnsConnectionRefusal): DashboardError {
  switch (refusal.kind) {
    case 'invalid_field':
      return invalidParam(refusal.field, 'rest_invalid_param', refusal.message);
    case 'not_connected':
      return dashboardError('rest_dns_not_connected', refusal.message, { provider: refusal.provider });
    case 'not_found':
      return dashboardError('rest_domain_invalid_id', refusal.message, { params: { domain: refusal.message } });
    case 'zone_not_found':
      return dashboardError('rest_dns_zone_not_found', refusal.message, { provider: refusal.provider, domain: refusal.domain });
    case 'provider_refused':
      return dashboardError('rest_dns_provider_refused', refusal.message, { provider: refusal.provider, provider_status: refusal.status });
    case 'provider_unavailable':
      return dashboardError('rest_dns_provider_unavailable', refusal.message, { provider: refusal.provider }, { 'Retry-After': '30' });
    case 'records_unavailable':
      return dashboardError('rest_dns_records_unavailable', refusal.message);
  }
}
