// wp/v2 font-families and their font-faces, the platform's font library, as WordPress's font families and font
// faces controllers answer them: settings sent as JSON strings and answered as objects, theme_json_version 2-3,
// create 201 with Location, DELETE only with force (no trash), a face asked of another family 404
// rest_font_face_parent_id_mismatch. Every route is for platform operators (edit_theme_options). The rules are
// the core's (shared/core/content/fonts.ts); faces name their files by http(s) address (no uploads).
import { Type } from '@sinclair/typebox';
import type { FontFace, FontFamily, FontPage, FontRefusal } from '../../../shared/core/content/fonts.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError, notAllowed } from '../../pipeline/dashboard-errors.js';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { apiUrl, contextArg, forContext, window, wpPage, type ItemSchema, type RestContext } from './wp-collection.js';
import { actorOf, contentError } from './wp-content-errors.js';

const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];

const FORBIDDEN: Readonly<Record<string, string>> = {
  rest_cannot_read: 'Sorry, you are not allowed to access font families.',
  rest_cannot_create: 'Sorry, you are not allowed to create font families.',
  rest_cannot_edit: 'Sorry, you are not allowed to edit font families.',
  rest_cannot_delete: 'Sorry, you are not allowed to delete font families.',
};

/** The value of a font library outcome, or its WordPress error thrown. */
function fontValue<T>(result: { ok: true; value: T } | { ok: false; refusal: FontRefusal }): T {
  if (result.ok) return result.value;
  const r = result.refusal;
  if (r.kind === 'invalid') throw dashboardError(r.code, r.message, r.params ? { params: r.params } : undefined);
  if (r.kind === 'forbidden') throw notAllowed(r.code, FORBIDDEN[r.code] ?? 'Sorry, you are not allowed to do that.', r.anonymous);
  if (r.kind === 'trash_not_supported')
    throw dashboardError('rest_trash_not_supported', "Font faces and families do not support trashing. Set 'force' to true to delete.");
  throw contentError(r);
}

const FAMILY_SCHEMA: ItemSchema = { id: { context: ALL }, theme_json_version: { context: ALL }, font_faces: { context: ALL }, font_family_settings: { context: ALL } };
const FACE_SCHEMA: ItemSchema = { id: { context: ALL }, theme_json_version: { context: ALL }, parent: { context: ALL }, font_face_settings: { context: ALL } };

const familiesUrl = (req: Incoming, id?: number) => apiUrl(req, `/wp/v2/font-families${id === undefined ? '' : `/${id}`}`);

function familyShape(req: Incoming, f: FontFamily): Record<string, unknown> {
  return {
    id: f.item.id,
    theme_json_version: f.themeJsonVersion,
    font_faces: f.faceIds,
    font_family_settings: f.settings,
    _links: {
      self: [{ href: familiesUrl(req, f.item.id) }],
      collection: [{ href: familiesUrl(req) }],
      ...(f.faceIds.length ? { font_faces: f.faceIds.map((id) => ({ embeddable: true, href: `${familiesUrl(req, f.item.id)}/font-faces/${id}` })) } : {}),
    },
  };
}

function faceShape(req: Incoming, f: FontFace): Record<string, unknown> {
  const family = familiesUrl(req, f.item.parentId ?? 0);
  return {
    id: f.item.id,
    theme_json_version: f.themeJsonVersion,
    parent: f.item.parentId ?? 0,
    font_face_settings: f.settings,
    _links: { self: [{ href: `${family}/font-faces/${f.item.id}` }], collection: [{ href: `${family}/font-faces` }], parent: [{ href: family }] },
  };
}

const listArgs = {
  context: contextArg(),
  page: Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
  per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100 }),
  search: Type.Optional(Type.String()),
  exclude: Type.Array(Type.Integer(), { default: [] }),
  include: Type.Array(Type.Integer(), { default: [] }),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  order: oneOf(['asc', 'desc'] as const, { default: 'desc' }),
  orderby: oneOf(['id', 'include'] as const, { default: 'id' }),
};

type ListParams = { page: number; per_page: number; offset?: number; context: RestContext } & Record<string, unknown>;
const pageOf = (p: ListParams, slugs?: string[]): FontPage => ({
  ...window(p),
  order: p.order as 'asc' | 'desc',
  orderby: p.orderby as 'id' | 'include',
  include: p.include as number[],
  exclude: p.exclude as number[],
  search: p.search as string | undefined,
  slugs,
});

const themeJsonVersion = Type.Integer({ minimum: 2, maximum: 3, default: 3, description: 'Version of the theme.json schema used for the typography settings.' });
const familyId = { font_family_id: Type.Integer({ description: 'The ID for the parent font family of the font face.' }) };

const familyRoutes: DashboardRoute<DashboardCaller>[] = [
  {
    namespace: 'wp/v2',
    path: '/font-families',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ ...listArgs, slug: Type.Optional(Type.Array(Type.String())) }),
        permission: 'public',
        summary: 'List font families',
        async handle({ ctx, user, params, request }) {
          const p = params as unknown as ListParams;
          const found = fontValue(await ctx.core.fonts.families(actorOf(user), pageOf(p, p.slug as string[] | undefined)));
          const items = found.families.map((f) => forContext(FAMILY_SCHEMA, familyShape(request, f), p.context));
          return wpPage(request, p, items, found.total, 'refuse');
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({
          theme_json_version: themeJsonVersion,
          font_family_settings: Type.String({ description: 'font-family declaration in theme.json format, encoded as a string.' }),
        }),
        permission: 'public',
        rate: 'writes',
        summary: 'Create a font family',
        async handle({ ctx, user, params, request }) {
          const created = fontValue(await ctx.core.fonts.createFamily(actorOf(user), params.font_family_settings, params.theme_json_version));
          return { status: 201, body: forContext(FAMILY_SCHEMA, familyShape(request, created), 'edit'), headers: { Location: familiesUrl(request, created.item.id) } };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/font-families/{id}',
    vars: { id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'Read a font family',
        async handle({ ctx, user, params, request }) {
          const family = fontValue(await ctx.core.fonts.family(actorOf(user), params.id));
          return { body: forContext(FAMILY_SCHEMA, familyShape(request, family), params.context) };
        },
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: Type.Object({
          id: Type.Integer(),
          theme_json_version: Type.Optional(Type.Integer({ minimum: 2, maximum: 3 })),
          font_family_settings: Type.Optional(Type.String()),
        }),
        permission: 'public',
        rate: 'writes',
        summary: 'Update a font family',
        async handle({ ctx, user, params, request }) {
          const family = fontValue(await ctx.core.fonts.updateFamily(actorOf(user), params.id, params.font_family_settings, params.theme_json_version));
          return { body: forContext(FAMILY_SCHEMA, familyShape(request, family), 'edit') };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ id: Type.Integer(), force: Type.Boolean({ default: false, description: 'Whether to bypass Trash and force deletion.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Delete a font family and its faces',
        async handle({ ctx, user, params, request }) {
          const family = fontValue(await ctx.core.fonts.removeFamily(actorOf(user), params.id, params.force));
          return { body: { deleted: true, previous: forContext(FAMILY_SCHEMA, familyShape(request, family), 'edit') } };
        },
      }),
    ],
  },
];

const faceRoutes: DashboardRoute<DashboardCaller>[] = [
  {
    namespace: 'wp/v2',
    path: '/font-families/{font_family_id}/font-faces',
    vars: { font_family_id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ ...familyId, ...listArgs }),
        permission: 'public',
        summary: 'List the font faces of a family',
        async handle({ ctx, user, params, request }) {
          const p = params as unknown as ListParams & { font_family_id: number };
          const found = fontValue(await ctx.core.fonts.faces(actorOf(user), p.font_family_id, pageOf(p)));
          const items = found.faces.map((f) => forContext(FACE_SCHEMA, faceShape(request, f), p.context));
          return wpPage(request, p, items, found.total, 'refuse');
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({
          ...familyId,
          theme_json_version: themeJsonVersion,
          font_face_settings: Type.String({ description: 'font-face declaration in theme.json format, encoded as a string.' }),
        }),
        permission: 'public',
        rate: 'writes',
        summary: 'Create a font face',
        async handle({ ctx, user, params, request }) {
          const created = fontValue(await ctx.core.fonts.createFace(actorOf(user), params.font_family_id, params.font_face_settings, params.theme_json_version));
          const location = `${familiesUrl(request, params.font_family_id)}/font-faces/${created.item.id}`;
          return { status: 201, body: forContext(FACE_SCHEMA, faceShape(request, created), 'edit'), headers: { Location: location } };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/font-families/{font_family_id}/font-faces/{id}',
    vars: { font_family_id: DIGITS, id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ ...familyId, id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'Read a font face',
        async handle({ ctx, user, params, request }) {
          const face = fontValue(await ctx.core.fonts.face(actorOf(user), params.font_family_id, params.id));
          return { body: forContext(FACE_SCHEMA, faceShape(request, face), params.context) };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ ...familyId, id: Type.Integer(), force: Type.Boolean({ default: false, description: 'Whether to bypass Trash and force deletion.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Delete a font face',
        async handle({ ctx, user, params, request }) {
          const face = fontValue(await ctx.core.fonts.removeFace(actorOf(user), params.font_family_id, params.id, params.force));
          return { body: { deleted: true, previous: forContext(FACE_SCHEMA, faceShape(request, face), 'edit') } };
        },
      }),
    ],
  },
];

export const wpFontRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [...familyRoutes, ...faceRoutes];
