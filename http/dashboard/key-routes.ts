// The mailer's keys: GET/POST /api-keys and DELETE /api-keys/{key_hash}, the sending keys of the team acted on
// as /v2/api-keys keeps them (listed masked, the value shown once at creation, revoked at once through the key
// cache). Items are /v2's with the opaque id (opaque-ids.ts) and `type`. Translation only.
import { Type } from '@sinclair/typebox';
import { IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import { collectionArgs, pageReply } from './collection.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from './refusal-errors.js';
import { corePage } from './mailer-paging.js';
import { idOf, opaqueId } from './opaque-ids.js';
import { keyItem } from '../admin/api-keys.js';
import { notFound } from '../../core/management-refusals.js';
import type { KeyRecord } from '../../domain/key-record.js';

type Route = DashboardRoute<DashboardCaller>;

const keyView = (k: KeyRecord) => ({ ...keyItem(k), id: opaqueId('sending_key', k.id), type: 'sending' as const });

const keys: Route = {
  namespace: 'tern/v2',
  path: '/api-keys',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's sending keys, masked",
      args: Type.Object({ ...collectionArgs }),
      async handle({ ctx, user, params, request }) {
        const page = await ctx.core.sendingKeys.list(signedIn(user).acting, corePage(params, ctx.config));
        return pageReply(request, params, page.rows.map(keyView), page.total);
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: 'Creates a sending key; its value is in this answer only',
      args: Type.Object({
        name: Type.String({ description: 'The name of the key.', minLength: 1, maxLength: 100 }),
        domain: Type.Optional(Type.String({ description: 'A domain id of the team the key is limited to; omitted: every domain.', minLength: 1, maxLength: 64 })),
      }),
      async handle({ ctx, user, params, log }) {
        const { key, value } = valueOf(await ctx.core.sendingKeys.create(signedIn(user).acting, { name: params.name, domainId: params.domain }, log));
        return { status: 201, body: { ...keyView(key), api_key: value } };
      },
    }),
  ],
};

const key: Route = {
  namespace: 'tern/v2',
  path: '/api-keys/{key_hash}',
  vars: { key_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      allowBatch: true,
      summary: 'Revokes a sending key: it stops working at once',
      args: Type.Object({ key_hash: Type.String({ description: 'The opaque id of the key.' }) }),
      async handle({ ctx, user, params, log }) {
        const id = idOf('sending_key', params.key_hash);
        if (id === undefined) valueOf(notFound('sending_key', 'Sending key not found'));
        valueOf(await ctx.core.sendingKeys.revoke(signedIn(user).acting, id!, log));
        return { body: { deleted: true, id: params.key_hash } };
      },
    }),
  ],
};

export const keyRoutes: readonly Route[] = [keys, key];
