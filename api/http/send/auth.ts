// The sending-key authentication strategy: who is sending over HTTP, the key from `Authorization: Bearer` or
// the body's api_key, and the team named by X-Account-Id. The rules are the core's
// (core/sending/sender-authorization.ts); this file only reads them off the request and translates a refusal
// into the sending error shape.
import { SendError } from '../../../shared/errors.js';
import type { Sender, SenderCredential } from '../../../shared/core/sending/sender-authorization.js';
import type { AppContext } from '../../pipeline/context.js';
import { bearerToken } from '../auth.js';
import type { AuthStrategy, WithHeaders } from '../../pipeline/pipeline.js';
import type { GroupRoute } from '../../pipeline/route.js';
import { sendErrorFor } from './refusal-errors.js';

export type { Sender } from '../../../shared/core/sending/sender-authorization.js';

function bodyKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>).api_key;
  return typeof value === 'string' ? value : undefined;
}

/** X-Account-Id as a team id; a malformed value is the request's fault, answered before any key lookup matters. */
function actingTeamId(req: WithHeaders): number | undefined {
  const header = req.headers['x-account-id'];
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return undefined;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw new SendError(422, 'validation_error', 'X-Account-Id must be a team id (an integer)', { account_id: { invalid: 'give a team id' } });
  }
  return Number(text.trim());
}

function credentialOf(req: WithHeaders, body: unknown): SenderCredential {
  // An Authorization header that carries no Bearer token (Basic, empty) does not hide a body api_key.
  const header = bearerToken(req) || undefined;
  if (header !== undefined) return { key: header, carriedIn: 'http_header', actingTeamId: actingTeamId(req) };
  return { key: bodyKey(body), carriedIn: 'http_body', actingTeamId: actingTeamId(req) };
}

/** The sender of a request, found active; throws the sending interface's error otherwise. */
export async function authenticateSender(ctx: AppContext, req: WithHeaders, body: unknown): Promise<Sender> {
  const identified = await ctx.core.senders.identify(credentialOf(req, body));
  if (!identified.ok) throw sendErrorFor(identified.refusal);
  const active = await ctx.core.senders.authorize(identified.value);
  if (!active.ok) throw sendErrorFor(active.refusal);
  return active.value.sender;
}

/** The sending routes' strategy: a sending key, or an admin key holding emails:send, on an active team. */
export const sendingKeyAuth: AuthStrategy<Sender, GroupRoute<Sender>> = {
  authenticate: (ctx, req, body) => authenticateSender(ctx, req, body),
  teamOf: (sender) => sender.team.id,
};
