// The mailer's keys: GET/POST /api-keys and DELETE /api-keys/{key_hash}. Sending keys of the team acted on as
// /v2/api-keys keeps them (listed masked, the value shown once at creation, revoked at once through the key
// cache), and the account's admin keys (core.adminKeys: made and revoked by the owner on the main account, scopes
// fixed at creation). Items are /v2's with the opaque id (api/presenters/opaque-ids.ts), `type`, and an admin key's scopes.
// Translation only.
import { Type } from '@sinclair/typebox';
import { IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { signedIn, type AccountCaller, type DashboardCaller } from './authentication.js';
import { invalidParam, valueOf } from '../../pipeline/refusal-errors.js';
import { corePage } from './mailer-paging.js';
import { idOf, opaqueId } from '../../presenters/opaque-ids.js';
import { keyItem } from '../admin/api-keys.js';
import { notFound } from '../../../shared/core/management-refusals.js';
import { SCOPES } from '../../../shared/scopes.js';
import { KEY_NAME_MAX, type KeyRecord } from '../../../shared/domain/key-record.js';
import type { CreatedKey } from '../../../shared/core/sending-keys.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Logger } from '../../../shared/log.js';

type Route = DashboardRoute<DashboardCaller>;

const KEY_TYPES = ['sending', 'admin'] as const;

const keyView = (k: KeyRecord) =>
  k.kind === 'admin'
    ? { ...keyItem(k), id: opaqueId('admin_key', k.id), type: 'admin' as const, scopes: k.scopes, team_id: k.teamId }
    : { ...keyItem(k), id: opaqueId('sending_key', k.id), type: 'sending' as const };

const createArgs = Type.Object({
  type: oneOf(KEY_TYPES, { description: 'The kind of key: a sending key of the team, or an admin key of the account (owner only).', default: 'sending' }),
  name: Type.String({ description: 'The name of the key.', minLength: 1, maxLength: KEY_NAME_MAX }),
  domain: Type.Optional(Type.String({ description: 'Sending keys: a domain id of the team the key is limited to; omitted: every domain.', minLength: 1, maxLength: 64 })),
  scopes: Type.Optional(
    Type.Array(oneOf(SCOPES), { description: 'Admin keys: the scopes granted, fixed for the life of the key.', minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  ),
});

interface CreateParams {
  type: (typeof KEY_TYPES)[number];
  name: string;
  domain?: string;
  scopes?: string[];
}

/** Creates the key the params ask for; a field that belongs to the other kind is refused, not ignored. */
async function created(ctx: AppContext, caller: AccountCaller, p: CreateParams, log: Logger): Promise<CreatedKey> {
  if (p.type === 'admin') {
    if (p.domain !== undefined) throw invalidParam('domain', 'rest_invalid_param', 'An admin key is not limited to a domain.');
    if (p.scopes === undefined) throw invalidParam('scopes', 'rest_property_required', 'An admin key needs its scopes (at least one).');
    return valueOf(await ctx.core.adminKeys.issueBy(caller.user, caller.acting, { name: p.name, scopes: p.scopes }, log));
  }
  if (p.scopes !== undefined) throw invalidParam('scopes', 'rest_invalid_param', 'A sending key has no scopes; scopes are for admin keys (type admin).');
  return valueOf(await ctx.core.sendingKeys.create(caller.acting, { name: p.name, domainId: p.domain }, log));
}

const keys: Route = {
  namespace: 'tern/v2',
  path: '/api-keys',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's sending keys, then the account's admin keys, masked",
      args: Type.Object({ ...collectionArgs, type: Type.Optional(oneOf(KEY_TYPES, { description: 'Only keys of this kind.' })) }),
      async handle({ ctx, user, params, request }) {
        const page = await ctx.core.keys.list(signedIn(user).acting, params.type, corePage(params));
        return pageReply(request, params, page.rows.map(keyView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Creates a sending key, or (type admin, the owner on the main account) an admin key; its value is in this answer only',
      args: createArgs,
      async handle({ ctx, user, params, log }) {
        const { key, value } = await created(ctx, signedIn(user), params, log);
        return { status: 201, body: { ...keyView(key), api_key: value } };
      },
    }),
  ],
};

/** Revokes the key an opaque id names, of either kind; anything else is a missing key. */
async function revoke(ctx: AppContext, caller: AccountCaller, keyHash: string, log: Logger): Promise<void> {
  const sendingId = idOf('sending_key', keyHash);
  if (sendingId !== undefined) return valueOf(await ctx.core.sendingKeys.revoke(caller.acting, sendingId, log));
  const adminId = idOf('admin_key', keyHash);
  if (adminId !== undefined) return valueOf(await ctx.core.adminKeys.revokeBy(caller.user, caller.acting, adminId, log));
  valueOf(notFound('sending_key', 'Key not found'));
}

const key: Route = {
  namespace: 'tern/v2',
  path: '/api-keys/{key_hash}',
  vars: { key_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      allowBatch: true,
      summary: 'Revokes a sending key, or (the owner on the main account) an admin key: it stops working within the key cache TTL',
      args: Type.Object({ key_hash: Type.String({ description: 'The opaque id of the key.' }) }),
      async handle({ ctx, user, params, log }) {
        await revoke(ctx, signedIn(user), params.key_hash, log);
        return { body: { deleted: true, id: params.key_hash } };
      },
    }),
  ],
};

export const keyRoutes: readonly Route[] = [keys, key];
