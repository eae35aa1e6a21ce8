// The admin-key authentication strategy: the key in `Authorization: Bearer`, and the team named by
// X-Account-Id as the route treats it, read off the request; the rules are the core's
// (core/admin-authentication.ts), a refusal is worded in the admin error shape.
import { adminError, type AdminError } from '../../shared/errors.js';
import type { AdminRefusal } from '../../shared/core/admin-authentication.js';
import type { AppContext } from '../pipeline/context.js';
import type { AnyRoute, Caller } from '../pipeline/route.js';
import type { AuthStrategy, WithHeaders } from '../pipeline/pipeline.js';

export function bearerToken(req: WithHeaders): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

function bodyApiKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>).api_key;
  return typeof value === 'string' ? value : undefined;
}

/**
 * How a route treats X-Account-Id, the header naming the team to act on (its wire name keeps the old word):
 * select the team, ignore it (GET /v2/teams), or refuse it (POST /v2/teams).
 */
export type TeamHeaderMode = 'select' | 'ignore' | 'forbid';

export const hasTeamHeader = (req: WithHeaders): boolean => {
  const header = req.headers['x-account-id'];
  return header !== undefined && header !== '';
};

/** X-Account-Id as a team id; 'malformed' is answered only once the key is known good. */
function actingTeamId(req: WithHeaders): number | 'malformed' | undefined {
  if (!hasTeamHeader(req)) return undefined;
  const header = req.headers['x-account-id']!;
  const text = (Array.isArray(header) ? header[0]! : header).trim();
  return /^\d{1,15}$/.test(text) ? Number(text) : 'malformed';
}

function adminErrorOf(refusal: AdminRefusal): AdminError {
  switch (refusal.kind) {
    case 'missing_key':
      return adminError('missing_api_key', 'No API key: send Authorization: Bearer <admin key>');
    case 'admin_key_in_body':
      return adminError('admin_key_in_body', 'Admin keys are accepted only in the Authorization header (Bearer), never in the body');
    case 'sending_key':
      return adminError('sending_key_not_allowed', 'Sending keys cannot be used on admin endpoints; use an admin key');
    case 'invalid_key':
      return adminError('invalid_api_key', 'The API key is invalid or has been revoked');
    case 'team_out_of_reach':
      return adminError('not_found', 'Team not found');
  }
}

/** Admin endpoints take admin keys in the Authorization header only, never from the body or query. */
export async function authenticateAdmin(ctx: AppContext, req: WithHeaders, body: unknown, mode: TeamHeaderMode = 'select'): Promise<Caller> {
  // Only a selecting route resolves the header: an ignored or refused one must not answer 404 for it.
  const acting = mode === 'select' ? actingTeamId(req) : undefined;
  const result = await ctx.core.admins.authenticate({
    bearer: bearerToken(req),
    inBody: bodyApiKey(body),
    actingTeamId: typeof acting === 'number' ? acting : undefined,
  });
  if (!result.ok) throw adminErrorOf(result.refusal);
  if (acting === 'malformed') throw adminError('validation_failed', 'X-Account-Id must be a team id (an integer)', { field: 'X-Account-Id' });
  return result.caller;
}

const teamHeaderMode = (route: AnyRoute): TeamHeaderMode => (route.forbidsTeamHeader ? 'forbid' : route.ignoresTeamHeader ? 'ignore' : 'select');

/** The admin routes' strategy: an admin key, acting on the team X-Account-Id names (where the route lets it). */
export const adminKeyAuth: AuthStrategy<Caller, AnyRoute> = {
  authenticate: (ctx, req, body, route) => authenticateAdmin(ctx, req, body, teamHeaderMode(route)),
  teamOf: (caller) => caller.acting.id,
};
