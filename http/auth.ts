// Admin-interface authentication: the key in `Authorization: Bearer`, and the team named by X-Account-Id.
import type { IncomingMessage } from 'node:http';
import { adminError } from '../shared/errors.js';
import { kindOf } from '../shared/api-key.js';
import { rootIdOf, type Team } from '../domain/team.js';
import type { AppContext } from './context.js';
import type { Caller } from './route.js';

export function bearerToken(req: IncomingMessage): string | undefined {
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

/** How a route treats X-Account-Id: select the team, ignore it (GET /v2/teams), or refuse it (POST /v2/teams). */
export type AccountIdMode = 'select' | 'ignore' | 'forbid';

/** Admin endpoints take admin keys in the Authorization header only, never from the body or query. */
export async function authenticateAdmin(ctx: AppContext, req: IncomingMessage, body: unknown, mode: AccountIdMode = 'select'): Promise<Caller> {
  const inBody = bodyApiKey(body);
  // An admin key in a body is refused even beside a valid header: it must not become an accepted habit.
  if (inBody !== undefined && kindOf(inBody) === 'admin') {
    throw adminError('admin_key_in_body', 'Admin keys are accepted only in the Authorization header (Bearer), never in the body');
  }
  const token = bearerToken(req);
  if (token === undefined) {
    if (inBody !== undefined) throw adminError('sending_key_not_allowed', 'This endpoint needs an admin key in the Authorization header');
    throw adminError('missing_api_key', 'No API key: send Authorization: Bearer <admin key>');
  }
  if (kindOf(token) === 'sending') throw adminError('sending_key_not_allowed', 'Sending keys cannot be used on admin endpoints; use an admin key');
  const key = await ctx.keyCache.resolve(token);
  if (!key || key.kind !== 'admin') throw adminError('invalid_api_key', 'The API key is invalid or has been revoked');
  const owner = await ctx.store.accounts.get(key.accountId);
  if (!owner) throw adminError('invalid_api_key', 'The API key is invalid or has been revoked');
  // Only a selecting route resolves the header: an ignored or refused one must not answer 404 for it.
  const acting = mode === 'select' ? await actingTeam(ctx, req, owner) : owner;
  return { key, owner, acting, rootId: rootIdOf(owner) };
}

/** The team named by X-Account-Id: the key's own team or, for a root account's key, one of its teams. */
async function actingTeam(ctx: AppContext, req: IncomingMessage, owner: Team): Promise<Team> {
  const header = req.headers['x-account-id'];
  if (header === undefined || header === '') return owner;
  const text = Array.isArray(header) ? header[0]! : header;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw adminError('validation_failed', 'X-Account-Id must be a team id (an integer)', { field: 'X-Account-Id' });
  }
  const id = Number(text.trim());
  if (id === owner.id) return owner;
  const team = await ctx.store.accounts.get(id);
  // A team outside the key's reach answers exactly like one that does not exist.
  if (!team || owner.parentId !== null || team.parentId !== owner.id) throw adminError('not_found', 'Team not found');
  return team;
}

export const hasAccountIdHeader = (req: IncomingMessage): boolean => {
  const header = req.headers['x-account-id'];
  return header !== undefined && header !== '';
};
