// wp/v2 templates and template-parts (WordPress's templates controller), and the site editor's wp-block-editor/v1
// export (a zip of the caller's templates and parts) and navigation-fallback. A template's id is `tern//slug`.
// The rules are the core's (shared/core/content/templates.ts, posts.ts); this file maps args to its inputs and its
// outcomes to WordPress's answers (wp-content-errors.ts).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import { strToU8, zipSync } from 'fflate';
import type { ContentItem } from '../../../shared/domain/content.js';
import { SETTABLE_STATUSES } from '../../../shared/domain/content.js';
import { TEMPLATE_AREAS, THEME, templateId, type TemplateInput, type TemplateType } from '../../../shared/core/content/templates.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { endpoint, StreamedBody, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { apiUrl, contextArg, forContext, type ItemSchema, type RestContext } from './wp-collection.js';
import { actorOf, contentValue, wpDate } from './wp-content-errors.js';

interface TemplateTypeDef {
  type: TemplateType;
  base: 'templates' | 'template-parts';
}

const TEMPLATES: TemplateTypeDef = { type: 'wp_template', base: 'templates' };
const PARTS: TemplateTypeDef = { type: 'wp_template_part', base: 'template-parts' };

/** A template's id in a path: `theme//slug` (clients may send the slashes encoded). */
const TEMPLATE_ID = '[A-Za-z0-9_-]+(?://|%2F%2F)[A-Za-z0-9_%-]+';

const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];
const EDIT: readonly RestContext[] = ['edit'];

/** The fields of a template and the contexts each is shown in (WordPress's template schema). */
const TEMPLATE_SCHEMA: ItemSchema = {
  id: { context: ALL },
  slug: { context: ALL },
  theme: { context: ALL },
  type: { context: ALL },
  source: { context: ALL },
  origin: { context: ALL },
  content: { context: ALL, properties: { raw: { context: VIEW_EDIT }, block_version: { context: EDIT } } },
  title: { context: ALL, properties: { raw: { context: VIEW_EDIT }, rendered: { context: ALL } } },
  description: { context: ALL },
  status: { context: ALL },
  wp_id: { context: ALL },
  has_theme_file: { context: ALL },
  is_custom: { context: ALL },
  author: { context: ALL },
  modified: { context: VIEW_EDIT },
  author_text: { context: ALL },
  original_source: { context: ALL },
  area: { context: ALL },
};

function templateShape(req: Incoming, def: TemplateTypeDef, item: ContentItem, authorText: string): Record<string, unknown> {
  const self = apiUrl(req, `/wp/v2/${def.base}/${templateId(item)}`);
  const data: Record<string, unknown> = {
    id: templateId(item),
    theme: THEME,
    content: { raw: item.content, block_version: item.content.includes('<!-- wp:') ? 1 : 0 },
    slug: item.slug,
    source: 'custom',
    origin: null,
    type: def.type,
    description: item.excerpt,
    title: { raw: item.title, rendered: escapeHtml(item.title) },
    status: item.status,
    wp_id: item.id,
    has_theme_file: false,
    author: item.authorId ?? 0,
    modified: wpDate(item.modified),
    author_text: authorText,
    original_source: 'user',
    _links: {
      self: [{ href: self, targetHints: { allow: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } }],
      collection: [{ href: apiUrl(req, `/wp/v2/${def.base}`) }],
      about: [{ href: apiUrl(req, `/wp/v2/types/${def.type}`) }],
      ...(item.authorId !== null ? { author: [{ href: apiUrl(req, `/wp/v2/users/${item.authorId}`), embeddable: true }] } : {}),
    },
  };
  if (def.type === 'wp_template') data.is_custom = true;
  else data.area = typeof item.meta.area === 'string' ? item.meta.area : 'uncategorized';
  return data;
}

const textOrRaw = Type.Union([Type.String(), Type.Object({ raw: Type.String() }, { additionalProperties: true })]);
const textOf = (v: unknown): string | undefined => (v === undefined ? undefined : typeof v === 'string' ? v : (v as { raw: string }).raw);

/** A template's slug, as WordPress's schema allows one. */
const SLUG = Type.String({ minLength: 1, pattern: '^[a-zA-Z0-9_%-]+$', description: 'Unique slug identifying the template.' });

const writeArgs = (def: TemplateTypeDef) => ({
  content: Type.Optional(textOrRaw),
  title: Type.Optional(textOrRaw),
  description: Type.Optional(Type.String({ description: 'Description of template.' })),
  status: Type.Optional(oneOf(SETTABLE_STATUSES, { description: 'Status of template.' })),
  author: Type.Optional(Type.Integer({ description: 'The ID for the author of the template.' })),
  ...(def.type === 'wp_template_part' ? { area: Type.Optional(oneOf(TEMPLATE_AREAS, { description: 'Where the template part is intended for use.' })) } : {}),
});

const inputOf = (p: Record<string, unknown>): TemplateInput => ({
  slug: p.slug as string | undefined,
  title: textOf(p.title),
  content: textOf(p.content),
  description: p.description as string | undefined,
  status: p.status as TemplateInput['status'],
  area: p.area as TemplateInput['area'],
  authorId: p.author as number | undefined,
});

/** A template in WordPress's shape with its author's name, before the context filter. */
const shaperOf = (def: TemplateTypeDef) => async (ctx: AppContext, req: Incoming, item: ContentItem) =>
  templateShape(req, def, item, await ctx.core.templates.authorText(item));

function collectionRoute(def: TemplateTypeDef): DashboardRoute<DashboardCaller> {
  const shape = shaperOf(def);
  return {
    namespace: 'wp/v2',
    path: `/${def.base}`,
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({
          context: contextArg(),
          wp_id: Type.Optional(Type.Integer({ description: 'Limit to the specified post id.' })),
          ...(def.type === 'wp_template_part' ? { area: Type.Optional(oneOf(TEMPLATE_AREAS, { description: 'Limit to the specified template part area.' })) } : {}),
        }),
        permission: 'public',
        summary: `List ${def.base}`,
        async handle({ ctx, user, params, request }) {
          const all = contentValue(
            await ctx.core.templates.list(actorOf(user), def.type, { edit: params.context === 'edit', area: (params as { area?: TemplateInput['area'] }).area }),
            'template',
          );
          const items = params.wp_id === undefined ? all : all.filter((i) => i.id === params.wp_id);
          return { body: await Promise.all(items.map(async (i) => forContext(TEMPLATE_SCHEMA, await shape(ctx, request, i), params.context))) };
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({ slug: SLUG, ...writeArgs(def) }),
        permission: 'public',
        rate: 'writes',
        summary: `Create a ${def.type}`,
        async handle({ ctx, user, params, request }) {
          const created = contentValue(await ctx.core.templates.create(actorOf(user), def.type, { ...inputOf(params), slug: params.slug }), 'template');
          const body = forContext(TEMPLATE_SCHEMA, await shape(ctx, request, created), 'edit');
          return { status: 201, body, headers: { Location: apiUrl(request, `/wp/v2/${def.base}/${templateId(created)}`) } };
        },
      }),
    ],
  };
}

function itemRoute(def: TemplateTypeDef): DashboardRoute<DashboardCaller> {
  const shape = shaperOf(def);
  const idArgs = { id: Type.String({ pattern: '^[A-Za-z0-9_-]+//[A-Za-z0-9_%-]+$', description: 'The id of a template' }) };
  return {
    namespace: 'wp/v2',
    path: `/${def.base}/{id}`,
    vars: { id: TEMPLATE_ID },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ ...idArgs, context: contextArg() }),
        permission: 'public',
        summary: `Read a ${def.type}`,
        async handle({ ctx, user, params, request }) {
          const item = contentValue(await ctx.core.templates.read(actorOf(user), def.type, params.id, params.context === 'edit'), 'template');
          return { body: forContext(TEMPLATE_SCHEMA, await shape(ctx, request, item), params.context) };
        },
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: Type.Object({ ...idArgs, slug: Type.Optional(SLUG), ...writeArgs(def) }),
        permission: 'public',
        rate: 'writes',
        summary: `Update a ${def.type}`,
        async handle({ ctx, user, params, request }) {
          const updated = contentValue(await ctx.core.templates.update(actorOf(user), def.type, params.id, inputOf(params)), 'template');
          return { body: forContext(TEMPLATE_SCHEMA, await shape(ctx, request, updated), 'edit') };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ ...idArgs, force: Type.Boolean({ default: false, description: 'Whether to bypass Trash and force deletion.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: `Delete a ${def.type}`,
        async handle({ ctx, user, params, request }) {
          const gone = contentValue(await ctx.core.templates.remove(actorOf(user), def.type, params.id, params.force), 'template');
          return { body: { deleted: true, previous: forContext(TEMPLATE_SCHEMA, await shape(ctx, request, gone), 'edit') } };
        },
      }),
    ],
  };
}

const templateRoutes = (def: TemplateTypeDef): DashboardRoute<DashboardCaller>[] => [collectionRoute(def), itemRoute(def)];

/** The site editor's export: the templates as `templates/<slug>.html`, the parts as `parts/<slug>.html`. */
const exportRoute: DashboardRoute<DashboardCaller> = {
  namespace: 'wp-block-editor/v1',
  path: '/export',
  endpoints: [
    endpoint({
      methods: ['GET'],
      args: Type.Object({}),
      permission: 'public',
      summary: "A zip of the caller's templates and template parts",
      async handle({ ctx, user }) {
        const { templates, parts } = contentValue(await ctx.core.templates.exportable(actorOf(user)), 'template');
        const files: Record<string, Uint8Array> = {};
        for (const t of templates) files[`templates/${t.slug}.html`] = strToU8(t.content);
        for (const p of parts) files[`parts/${p.slug}.html`] = strToU8(p.content);
        const zip = Buffer.from(zipSync(files));
        return {
          body: new StreamedBody('application/zip', () => Readable.from([zip])),
          headers: { 'Content-Disposition': `attachment; filename="${THEME}.zip"` },
        };
      },
    }),
  ],
};

/** The navigation the site editor falls back to (WordPress's navigation fallback controller): its id, embeddable. */
const navigationFallbackRoute: DashboardRoute<DashboardCaller> = {
  namespace: 'wp-block-editor/v1',
  path: '/navigation-fallback',
  endpoints: [
    endpoint({
      methods: ['GET'],
      args: Type.Object({ context: contextArg() }),
      permission: 'public',
      summary: "The caller's fallback navigation menu, created when it has none",
      async handle({ ctx, user, request }) {
        const menu = contentValue(await ctx.core.posts.fallbackNavigation(actorOf(user)));
        return { body: { id: menu.id, _links: { self: [{ embeddable: true, href: apiUrl(request, `/wp/v2/navigation/${menu.id}`) }] } } };
      },
    }),
  ],
};

export const wpTemplateRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [
  ...templateRoutes(TEMPLATES),
  ...templateRoutes(PARTS),
  exportRoute,
  navigationFallbackRoute,
];
