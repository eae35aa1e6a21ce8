// /v2/api-keys: the team's sending keys. Admin keys never appear here and cannot be created here.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { DataOf, Deleted, IdParams, ListEnvelope, PageQuery, DisplayDateTime } from '../schemas/common.js';
import { maskKey } from '../../../shared/api-key.js';
import { valueOf } from './refusal-errors.js';
import { toDisplayDateTime } from '../../../shared/time.js';
import { envelope, pageFrom } from '../../pipeline/paging.js';
import { KEY_NAME_MAX, type KeyRecord } from '../../../shared/domain/key-record.js';

const KeyItem = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  key: Type.String({ description: 'Masked: only the start and the end are shown' }),
  status: Type.Literal('active'),
  domain: Type.Union([Type.String(), Type.Null()], { description: 'The one domain the key may send from, or null for all' }),
  created_at: DisplayDateTime,
});

/** A sending key as /v2 lists it, masked (shared with the dashboard's /api-keys, which replaces the id). */
export const keyItem = (k: KeyRecord) => ({
  id: k.id,
  title: k.title,
  key: maskKey(k.keyStart, k.keyEnd),
  status: k.status,
  domain: k.domainName,
  created_at: toDisplayDateTime(k.createdAt),
});

const list = defineRoute({
  method: 'GET',
  path: '/v2/api-keys',
  summary: 'List the team’s sending keys, masked',
  tag: 'Sending keys',
  scopes: ['api_keys:read'],
  rate: null,
  query: Type.Object(PageQuery),
  responses: { 200: { description: 'Sending keys', schema: ListEnvelope(KeyItem) } },
  async handle({ ctx, caller, query }) {
    const page = pageFrom(query, ctx.config);
    const { rows, total } = await ctx.core.sendingKeys.list(caller.acting, page);
    return { body: envelope(rows.map(keyItem), total, page) };
  },
});

const create = defineRoute({
  method: 'POST',
  path: '/v2/api-keys',
  summary: 'Create a sending key; its value is shown once',
  tag: 'Sending keys',
  scopes: ['api_keys:write', 'emails:send'],
  rate: 'writes',
  body: Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: KEY_NAME_MAX }),
      domain: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A domain id of the team; omitted: every domain' })),
    },
    { additionalProperties: false },
  ),
  responses: {
    201: {
      description: 'Key created',
      schema: DataOf(Type.Object({ id: Type.Integer(), name: Type.String(), api_key: Type.String(), created_at: DisplayDateTime })),
    },
    404: { description: 'The domain is not one of the team’s' },
  },
  async handle({ ctx, caller, body, log }) {
    const { key, value } = valueOf(await ctx.core.sendingKeys.create(caller.acting, { name: body.name, domainId: body.domain }, log));
    return { status: 201, body: { data: { id: key.id, name: key.title, api_key: value, created_at: toDisplayDateTime(key.createdAt) } } };
  },
});

const remove = defineRoute({
  method: 'DELETE',
  path: '/v2/api-keys/{id}',
  summary: 'Revoke a sending key (it stops working at once)',
  tag: 'Sending keys',
  scopes: ['api_keys:write'],
  rate: 'writes',
  params: IdParams,
  responses: { 200: { description: 'Revoked', schema: Deleted }, 404: { description: 'No such sending key on this team' } },
  async handle({ ctx, caller, params, log }) {
    valueOf(await ctx.core.sendingKeys.revoke(caller.acting, params.id, log));
    return { body: { deleted: true } };
  },
});

export const apiKeyRoutes: AnyRoute[] = [list, create, remove];
