// The admin route group: admin-key authentication, the admin error shape, and the checks every admin route
// runs once the key is known: X-Account-Id where the route forbids it, the key's scopes, the rate buckets.
import { adminError } from '../../../shared/errors.js';
import { missingScope } from '../../../shared/scopes.js';
import { rateLimitHeaders } from '../../../shared/rate-limit.js';
import { adminKeyAuth, hasTeamHeader } from '../auth.js';
import type { Call, RouteGroup } from '../../pipeline/pipeline.js';
import type { AnyRoute, Caller } from '../../pipeline/route.js';
import { adminErrors } from './error-mapper.js';
import { adminRoutes } from './index.js';

type AdminCall = Call<Caller, AnyRoute>;

function refuseTeamHeader({ route, req }: AdminCall): void {
  if (route.forbidsTeamHeader && hasTeamHeader(req)) {
    throw adminError('account_id_not_allowed', 'This request must be sent without X-Account-Id: only the parent account can do it');
  }
}

function requireScopes({ route, caller }: AdminCall): void {
  const missing = missingScope(caller.key.scopes, route.scopes);
  if (missing) throw adminError('insufficient_scope', `This key lacks the ${missing} scope`, { required_scope: missing });
}

/** Counts the request against the account's bucket; the RateLimit-* headers go on every answer. */
async function enforceRate({ ctx, route, caller, query, headers }: AdminCall): Promise<void> {
  const policy = route.rate === 'writes-when-search' ? (query.search ? 'writes' : null) : route.rate;
  if (!policy) return;
  const decision = await ctx.core.writeRates.take(caller.accountId, policy);
  const limit = decision.limit;
  const rateHeaders = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw adminError('rate_limited', `Rate limit of ${limit} requests per minute exceeded; retry in ${decision.resetS} s`, {}, rateHeaders);
  }
  Object.assign(headers, rateHeaders);
}

export const adminGroup: RouteGroup<Caller, AnyRoute> = {
  bodyLimit: (config) => config.api.bodyLimitBytes,
  auth: adminKeyAuth,
  errors: adminErrors,
  checks: [refuseTeamHeader, requireScopes, enforceRate],
  routes: adminRoutes,
};
