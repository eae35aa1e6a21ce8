// Who is sending: a sending key (Authorization: Bearer, or api_key in the body) acting for its own
// team, or an admin key holding emails:send (header only) acting for the team named by X-Account-Id.
import type { IncomingMessage } from 'node:http';
import { SendError } from '../../shared/errors.js';
import { kindOf } from '../../shared/api-key.js';
import { allows } from '../../shared/scopes.js';
import { rootIdOf, type Team } from '../../domain/team.js';
import type { AppContext } from '../context.js';
import { bearerToken } from '../auth.js';

export interface Sender {
  team: Team;
  rootId: number;
  /** Null for sends made with an admin key: the logs show no sending-key id. */
  sendingKeyId: number | null;
  /** The one domain a restricted sending key may use. */
  onlyDomainId: string | null;
}

const invalidKey = (text = 'The API key is invalid or has been revoked') => new SendError(403, 'forbidden', 'Invalid API key', { api_key: { invalid: text } });

function bodyKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>).api_key;
  return typeof value === 'string' ? value : undefined;
}

async function adminActingTeam(ctx: AppContext, req: IncomingMessage, owner: Team): Promise<Team> {
  const header = req.headers['x-account-id'];
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return owner;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw new SendError(422, 'validation_error', 'X-Account-Id must be a team id (an integer)', { account_id: { invalid: 'give a team id' } });
  }
  const id = Number(text.trim());
  if (id === owner.id) return owner;
  const team = await ctx.store.accounts.get(id);
  if (!team || owner.parentId !== null || team.parentId !== owner.id) {
    throw new SendError(404, 'not_found', 'Team not found', { account_id: { not_found: 'X-Account-Id names no team this key reaches' } });
  }
  return team;
}

/** A team cannot send while it, or the account above it, is suspended. */
async function assertActive(ctx: AppContext, ...teams: Team[]): Promise<void> {
  for (const team of teams) {
    const root = team.parentId === null ? team : await ctx.store.accounts.get(team.parentId);
    if (team.status === 'suspended' || root?.status === 'suspended') {
      throw new SendError(403, 'forbidden', 'The team is suspended and cannot send', { account: { suspended: 'This team is suspended; sending is stopped' } });
    }
  }
}

export async function authenticateSender(ctx: AppContext, req: IncomingMessage, body: unknown): Promise<Sender> {
  // An Authorization header that carries no Bearer token (Basic, empty) does not hide a body api_key.
  const header = bearerToken(req) || undefined;
  const fromBody = header === undefined ? bodyKey(body) : undefined;
  const value = header ?? fromBody;
  if (!value) throw new SendError(401, 'unauthorized', 'No API key supplied', { api_key: { required: 'Send a key as Authorization: Bearer <key> or api_key' } });
  if (fromBody !== undefined && kindOf(fromBody) === 'admin') throw invalidKey('Admin keys are accepted only in the Authorization header');
  const key = await ctx.keyCache.resolve(value);
  if (!key) throw invalidKey();
  const owner = await ctx.store.accounts.get(key.accountId);
  if (!owner) throw invalidKey();
  if (key.kind === 'sending') {
    await assertActive(ctx, owner);
    return { team: owner, rootId: rootIdOf(owner), sendingKeyId: key.id, onlyDomainId: key.domainId };
  }
  if (!allows(key.scopes, 'emails:send')) throw invalidKey('This admin key lacks the emails:send scope');
  const team = await adminActingTeam(ctx, req, owner);
  // The team owning an admin key being suspended stops that key sending for every team.
  await assertActive(ctx, owner, team);
  return { team, rootId: rootIdOf(owner), sendingKeyId: null, onlyDomainId: null };
}
