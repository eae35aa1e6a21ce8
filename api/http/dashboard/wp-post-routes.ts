// wp/v2 posts and pages (announcements and documentation), reusable blocks and navigation menus, with their
// revisions and autosaves, as WordPress's posts, blocks, revisions and autosaves controllers answer them: the item shape by context, the collection args and
// headers, create 201 with Location, DELETE trashing unless forced. The rules are the core's (shared/core/content);
// this file maps args to its inputs and its outcomes to WordPress's answers (wp-content-errors.ts).
import { Type, type TObject } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import type { ContentItem, PostType, PostStatus } from '../../../shared/domain/content.js';
import { POST_STATUSES, SETTABLE_STATUSES } from '../../../shared/domain/content.js';
import type { PostInput, PostListQuery } from '../../../shared/core/content/posts.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { DIGITS, endpoint, type AnyEndpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { apiUrl, contextArg, forContext, listArgs, window, wpPage, type ItemSchema, type RestContext, type WpLinks } from './wp-collection.js';
import { actorOf, contentValue, wpDate } from './wp-content-errors.js';

interface PostTypeDef {
  type: Exclude<PostType, 'revision'>;
  base: string;
  /** Where its items are shown on the site (their `link`). */
  sitePath: string;
  hierarchical: boolean;
  taxonomies: boolean;
  /** The fields it answers, with their contexts (fields of the shape it does not name are left out). */
  schema: ItemSchema;
  /** The type's own change to the shape (a block's title and content have no rendered form). */
  finish?: (data: Record<string, unknown>, item: ContentItem) => Record<string, unknown>;
  /** The meta keys a client may write (registered meta, as WordPress's `meta` field). */
  metaKeys?: readonly string[];
}

const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];
const EDIT: readonly RestContext[] = ['edit'];
const rawRendered = (rendered: readonly RestContext[] = ALL) => ({ context: ALL, properties: { raw: { context: EDIT }, rendered: { context: rendered } } });

/** The fields of an item and the contexts each is shown in (WordPress's post schema). */
const POST_SCHEMA: ItemSchema = {
  id: { context: ALL },
  date: { context: ALL },
  date_gmt: { context: VIEW_EDIT },
  guid: { context: VIEW_EDIT, properties: { raw: { context: EDIT }, rendered: { context: VIEW_EDIT } } },
  link: { context: ALL },
  modified: { context: VIEW_EDIT },
  modified_gmt: { context: VIEW_EDIT },
  slug: { context: ALL },
  status: { context: VIEW_EDIT },
  type: { context: ALL },
  password: { context: EDIT },
  permalink_template: { context: EDIT },
  generated_slug: { context: EDIT },
  parent: { context: ALL },
  title: rawRendered(),
  content: {
    context: VIEW_EDIT,
    properties: { raw: { context: EDIT }, rendered: { context: VIEW_EDIT }, protected: { context: VIEW_EDIT }, block_version: { context: EDIT } },
  },
  excerpt: { context: ALL, properties: { raw: { context: EDIT }, rendered: { context: ALL }, protected: { context: ALL } } },
  author: { context: ALL },
  featured_media: { context: ALL },
  comment_status: { context: VIEW_EDIT },
  ping_status: { context: VIEW_EDIT },
  menu_order: { context: VIEW_EDIT },
  sticky: { context: VIEW_EDIT },
  template: { context: VIEW_EDIT },
  format: { context: VIEW_EDIT },
  meta: { context: VIEW_EDIT },
  categories: { context: VIEW_EDIT },
  tags: { context: VIEW_EDIT },
  class_list: { context: VIEW_EDIT },
};

/** The fields of a type that is not shown on the site (no link) and has no author, excerpt or parent. */
const without = (schema: ItemSchema, names: readonly string[]): ItemSchema => Object.fromEntries(Object.entries(schema).filter(([name]) => !names.includes(name)));
const EDITING_SCHEMA = without(POST_SCHEMA, [
  'link',
  'permalink_template',
  'generated_slug',
  'parent',
  'author',
  'excerpt',
  'featured_media',
  'comment_status',
  'ping_status',
  'menu_order',
  'sticky',
  'format',
  'categories',
  'tags',
]);

/**
 * A reusable block (WordPress's blocks controller): its title and content are shown raw in every context but
 * embed, and never rendered (a block is rendered where it is used); its sync status is its registered meta.
 */
const BLOCK_SCHEMA: ItemSchema = {
  ...EDITING_SCHEMA,
  excerpt: POST_SCHEMA.excerpt!,
  title: { context: ALL, properties: { raw: { context: VIEW_EDIT } } },
  content: { context: VIEW_EDIT, properties: { raw: { context: VIEW_EDIT }, protected: { context: VIEW_EDIT }, block_version: { context: EDIT } } },
  wp_pattern_category: { context: VIEW_EDIT },
};

const finishBlock = (data: Record<string, unknown>, item: ContentItem): Record<string, unknown> => ({
  ...data,
  title: { raw: item.title },
  content: { raw: item.content, protected: false, block_version: item.content.includes('<!-- wp:') ? 1 : 0 },
  meta: { wp_pattern_sync_status: typeof item.meta.wp_pattern_sync_status === 'string' ? item.meta.wp_pattern_sync_status : '' },
  wp_pattern_category: [],
});

export const POSTS: PostTypeDef = { type: 'post', base: 'posts', sitePath: 'news', hierarchical: false, taxonomies: true, schema: POST_SCHEMA };
export const PAGES: PostTypeDef = { type: 'page', base: 'pages', sitePath: 'docs', hierarchical: true, taxonomies: false, schema: POST_SCHEMA };
export const BLOCKS: PostTypeDef = {
  type: 'wp_block',
  base: 'blocks',
  sitePath: 'blocks',
  hierarchical: false,
  taxonomies: false,
  schema: BLOCK_SCHEMA,
  finish: finishBlock,
  metaKeys: ['wp_pattern_sync_status'],
};
export const NAVIGATION: PostTypeDef = {
  type: 'wp_navigation',
  base: 'navigation',
  sitePath: 'navigation',
  hierarchical: false,
  taxonomies: false,
  schema: EDITING_SCHEMA,
};

/** The fields of a revision (WordPress's revision schema). */
const REVISION_SCHEMA: ItemSchema = {
  author: { context: ALL },
  date: { context: ALL },
  date_gmt: { context: VIEW_EDIT },
  guid: { context: VIEW_EDIT },
  id: { context: ALL },
  modified: { context: VIEW_EDIT },
  modified_gmt: { context: VIEW_EDIT },
  parent: { context: ALL },
  slug: { context: ALL },
  title: rawRendered(),
  content: rawRendered(),
  excerpt: rawRendered(),
};

/** Text shown as HTML: escaped (the rendered block markup comes with the block renderer). */
const rendered = (raw: string): string => (raw === '' ? '' : `<p>${escapeHtml(raw)}</p>\n`);

function postLinks(req: Incoming, def: PostTypeDef, item: ContentItem, revisions: number): WpLinks {
  const self = apiUrl(req, `/wp/v2/${def.base}/${item.id}`);
  const links: WpLinks = {
    self: [{ href: self, targetHints: { allow: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } }],
    collection: [{ href: apiUrl(req, `/wp/v2/${def.base}`) }],
    about: [{ href: apiUrl(req, `/wp/v2/types/${def.type}`) }],
    'version-history': [{ href: `${self}/revisions`, count: revisions }],
  };
  if (item.authorId !== null) links.author = [{ href: apiUrl(req, `/wp/v2/users/${item.authorId}`), embeddable: true }];
  if (def.hierarchical && item.parentId) links.up = [{ href: apiUrl(req, `/wp/v2/${def.base}/${item.parentId}`), embeddable: true }];
  if (def.taxonomies) {
    links['wp:term'] = [
      { taxonomy: 'category', embeddable: true, href: apiUrl(req, `/wp/v2/categories?post=${item.id}`) },
      { taxonomy: 'post_tag', embeddable: true, href: apiUrl(req, `/wp/v2/tags?post=${item.id}`) },
    ];
  }
  return links;
}

/** An item in WordPress's shape, before the context filter. */
export function postShape(req: Incoming, def: PostTypeDef, item: ContentItem, termTaxonomies: ReadonlyMap<number, string>, revisions = 0): Record<string, unknown> {
  const terms = (taxonomy: string) => item.termIds.filter((id) => termTaxonomies.get(id) === taxonomy);
  const link = `${req.origin}/${def.sitePath}/${item.slug || `?p=${item.id}`}`;
  const data: Record<string, unknown> = {
    id: item.id,
    date: wpDate(item.date),
    date_gmt: wpDate(item.date),
    guid: { rendered: `${req.origin}/?p=${item.id}`, raw: `${req.origin}/?p=${item.id}` },
    link,
    modified: wpDate(item.modified),
    modified_gmt: wpDate(item.modified),
    slug: item.slug,
    status: item.status,
    type: def.type,
    password: '',
    permalink_template: `${req.origin}/${def.sitePath}/%postname%`,
    generated_slug: item.slug,
    title: { raw: item.title, rendered: escapeHtml(item.title) },
    content: { raw: item.content, rendered: rendered(item.content), protected: false, block_version: item.content.includes('<!-- wp:') ? 1 : 0 },
    excerpt: { raw: item.excerpt, rendered: rendered(item.excerpt), protected: false },
    author: item.authorId ?? 0,
    featured_media: 0,
    comment_status: item.commentStatus,
    ping_status: 'closed',
    template: '',
    meta: {},
    class_list: [`post-${item.id}`, def.type, `type-${def.type}`, `status-${item.status}`],
    _links: postLinks(req, def, item, revisions),
  };
  if (def.hierarchical) Object.assign(data, { parent: item.parentId ?? 0, menu_order: item.menuOrder });
  if (def.taxonomies) Object.assign(data, { sticky: item.meta.sticky === true, format: 'standard', categories: terms('category'), tags: terms('post_tag') });
  const finished = def.finish ? def.finish(data, item) : data;
  return Object.fromEntries(Object.entries(finished).filter(([name]) => name.startsWith('_') || def.schema[name] !== undefined));
}

function revisionShape(req: Incoming, def: PostTypeDef, r: ContentItem): Record<string, unknown> {
  return {
    author: r.authorId ?? 0,
    date: wpDate(r.date),
    date_gmt: wpDate(r.date),
    guid: `${req.origin}/?p=${r.id}`,
    id: r.id,
    modified: wpDate(r.modified),
    modified_gmt: wpDate(r.modified),
    parent: r.parentId ?? 0,
    slug: r.slug,
    title: { raw: r.title, rendered: escapeHtml(r.title) },
    content: { raw: r.content, rendered: rendered(r.content) },
    excerpt: { raw: r.excerpt, rendered: rendered(r.excerpt) },
    _links: { parent: [{ href: apiUrl(req, `/wp/v2/${def.base}/${r.parentId}`) }] },
  };
}

/** A date as WordPress reads one (rest_parse_date): with or without a zone (none: UTC, the site's zone). */
const WP_DATE = '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?$';
const dateArg = (description: string) => Type.Optional(Type.String({ pattern: WP_DATE, description }));
const isoOf = (date: string): string => new Date(/[zZ]|[+-]\d\d(:?\d\d)?$/.test(date) ? date.replace(' ', 'T') : `${date.replace(' ', 'T')}Z`).toISOString();

const textOrRaw = Type.Union([Type.String(), Type.Object({ raw: Type.String() }, { additionalProperties: true })]);
const textOf = (v: unknown): string | undefined => (v === undefined ? undefined : typeof v === 'string' ? v : (v as { raw: string }).raw);

/** The args a create or update may send (WordPress's schema's writable fields). */
const writeArgs = (def: PostTypeDef) => ({
  date: dateArg("The date the post was published, in the site's timezone."),
  date_gmt: dateArg('The date the post was published, as GMT.'),
  slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the post unique to its type.' })),
  status: Type.Optional(oneOf(SETTABLE_STATUSES, { description: 'A named status for the post.' })),
  password: Type.Optional(Type.String({ description: 'A password to protect access to the content and excerpt.' })),
  title: Type.Optional(textOrRaw),
  content: Type.Optional(textOrRaw),
  excerpt: Type.Optional(textOrRaw),
  author: Type.Optional(Type.Integer({ description: 'The ID for the author of the post.' })),
  comment_status: Type.Optional(oneOf(['open', 'closed'] as const)),
  ping_status: Type.Optional(oneOf(['open', 'closed'] as const)),
  template: Type.Optional(Type.String()),
  meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
  ...(def.hierarchical ? { parent: Type.Optional(Type.Integer({ minimum: 0 })), menu_order: Type.Optional(Type.Integer()) } : {}),
  ...(def.taxonomies
    ? {
        categories: Type.Optional(Type.Array(Type.Integer())),
        tags: Type.Optional(Type.Array(Type.Integer())),
        sticky: Type.Optional(Type.Boolean()),
        format: Type.Optional(oneOf(['standard'] as const)),
      }
    : {}),
});

/** The meta a client wrote: the type's registered keys, and a post's sticky flag. */
function metaOf(def: PostTypeDef, p: Record<string, unknown>): PostInput['meta'] {
  const sent = (p.meta ?? {}) as Record<string, unknown>;
  const meta: Record<string, unknown> = Object.fromEntries((def.metaKeys ?? []).filter((k) => sent[k] !== undefined).map((k) => [k, sent[k]]));
  if (p.sticky !== undefined) meta.sticky = p.sticky;
  return Object.keys(meta).length ? meta : undefined;
}

function inputOf(def: PostTypeDef, p: Record<string, unknown>): PostInput {
  const date = (p.date_gmt ?? p.date) as string | undefined;
  const terms = p.categories !== undefined || p.tags !== undefined ? [...((p.categories as number[]) ?? []), ...((p.tags as number[]) ?? [])] : undefined;
  return {
    title: textOf(p.title),
    content: textOf(p.content),
    excerpt: textOf(p.excerpt),
    slug: p.slug as string | undefined,
    status: p.status as PostInput['status'],
    date: date === undefined ? undefined : isoOf(date),
    parentId: p.parent === undefined ? undefined : (p.parent as number) || null,
    menuOrder: p.menu_order as number | undefined,
    commentStatus: p.comment_status as PostInput['commentStatus'],
    authorId: p.author as number | undefined,
    termIds: terms,
    meta: metaOf(def, p),
  };
}

const ORDERBY = ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', 'menu_order'] as const;

function listArgsOf(def: PostTypeDef): TObject {
  return Type.Object({
    ...listArgs(ORDERBY, 'date'),
    after: dateArg('Limit response to posts published after a given date.'),
    before: dateArg('Limit response to posts published before a given date.'),
    author: Type.Optional(Type.Array(Type.Integer())),
    author_exclude: Type.Optional(Type.Array(Type.Integer())),
    status: Type.Array(oneOf(POST_STATUSES), { default: ['publish'], description: 'Limit result set to posts assigned one or more statuses.' }),
    ...(def.hierarchical
      ? { parent: Type.Optional(Type.Array(Type.Integer())), parent_exclude: Type.Optional(Type.Array(Type.Integer())), menu_order: Type.Optional(Type.Integer()) }
      : {
          categories: Type.Optional(Type.Array(Type.Integer())),
          categories_exclude: Type.Optional(Type.Array(Type.Integer())),
          tags: Type.Optional(Type.Array(Type.Integer())),
          tags_exclude: Type.Optional(Type.Array(Type.Integer())),
          sticky: Type.Optional(Type.Boolean()),
        }),
  });
}

function listQueryOf(p: Record<string, unknown>): PostListQuery {
  const orderby = p.orderby as string;
  const order: PostListQuery['orderby'] = orderby === 'relevance' || orderby === 'include_slugs' ? 'date' : (orderby as PostListQuery['orderby']);
  const terms = [p.categories, p.tags].filter((t): t is number[] => Array.isArray(t) && t.length > 0);
  const excluded = [...((p.categories_exclude as number[]) ?? []), ...((p.tags_exclude as number[]) ?? [])];
  return {
    edit: p.context === 'edit',
    statuses: p.status as PostStatus[],
    search: p.search as string | undefined,
    include: p.include as number[],
    exclude: p.exclude as number[],
    slugs: p.slug as string[] | undefined,
    authors: p.author as number[] | undefined,
    authorsExcluded: p.author_exclude as number[] | undefined,
    parents: p.parent as number[] | undefined,
    parentsExcluded: p.parent_exclude as number[] | undefined,
    terms,
    termsExcluded: excluded,
    before: p.before === undefined ? undefined : isoOf(p.before as string),
    after: p.after === undefined ? undefined : isoOf(p.after as string),
    orderby: order,
    order: p.order as 'asc' | 'desc',
    ...window(p as { page: number; per_page: number; offset?: number }),
  };
}

type Shaper = (req: Incoming, item: ContentItem) => Promise<Record<string, unknown>>;

/** The taxonomy of each term an item links (to split its ids into categories and tags). */
function shaperOf(def: PostTypeDef, ctx: { core: { terms: { taxonomiesOf(ids: readonly number[]): Promise<Map<number, string>> } } }): Shaper {
  return async (req, item) => postShape(req, def, item, def.taxonomies ? await ctx.core.terms.taxonomiesOf(item.termIds) : new Map());
}

function collectionEndpoints(def: PostTypeDef): AnyEndpoint<DashboardCaller>[] {
  return [
    endpoint({
      methods: ['GET'],
      args: listArgsOf(def),
      permission: 'public',
      summary: `List ${def.base}`,
      async handle({ ctx, user, params, request }) {
        const found = contentValue(await ctx.core.posts.list(actorOf(user), def.type, listQueryOf(params)));
        // One look-up of the page's terms for all its items, not one per item.
        const taxonomies = def.taxonomies ? await ctx.core.terms.taxonomiesOf([...new Set(found.items.flatMap((i) => i.termIds))]) : new Map<number, string>();
        const items = found.items.map((item) => forContext(def.schema, postShape(request, def, item, taxonomies), params.context as RestContext));
        return wpPage(request, params as { page: number; per_page: number }, items, found.total, 'refuse');
      },
    }),
    endpoint({
      methods: ['POST'],
      args: Type.Object({ id: Type.Optional(Type.Integer()), ...writeArgs(def) }),
      permission: 'public',
      rate: 'writes',
      summary: `Create a ${def.type}`,
      async handle({ ctx, user, params, request }) {
        if (params.id !== undefined) contentValue({ ok: false, refusal: { kind: 'exists' } });
        const created = contentValue(await ctx.core.posts.create(actorOf(user), def.type, inputOf(def, params)));
        const body = forContext(def.schema, await shaperOf(def, ctx)(request, created), 'edit');
        return { status: 201, body, headers: { Location: apiUrl(request, `/wp/v2/${def.base}/${created.id}`) } };
      },
    }),
  ];
}

const idArgs = { id: Type.Integer({ description: 'Unique identifier for the post.' }) };

function itemEndpoints(def: PostTypeDef): AnyEndpoint<DashboardCaller>[] {
  return [
    endpoint({
      methods: ['GET'],
      args: Type.Object({ ...idArgs, context: contextArg(), password: Type.Optional(Type.String()) }),
      permission: 'public',
      summary: `Read a ${def.type}`,
      async handle({ ctx, user, params, request }) {
        const item = contentValue(await ctx.core.posts.read(actorOf(user), def.type, params.id, params.context === 'edit'));
        const revisions = params.context === 'edit' ? await ctx.core.posts.revisions(actorOf(user), def.type, item.id) : undefined;
        const shape = postShape(request, def, item, await ctx.core.terms.taxonomiesOf(item.termIds), revisions?.ok ? revisions.value.length : 0);
        return { body: forContext(def.schema, shape, params.context) };
      },
    }),
    endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      args: Type.Object({ ...idArgs, ...writeArgs(def) }),
      permission: 'public',
      rate: 'writes',
      summary: `Update a ${def.type}`,
      async handle({ ctx, user, params, request }) {
        const updated = contentValue(await ctx.core.posts.update(actorOf(user), def.type, params.id, inputOf(def, params)));
        return { body: forContext(def.schema, await shaperOf(def, ctx)(request, updated), 'edit') };
      },
    }),
    endpoint({
      methods: ['DELETE'],
      args: Type.Object({ ...idArgs, force: Type.Boolean({ default: false, description: 'Whether to bypass Trash and force deletion.' }) }),
      permission: 'public',
      rate: 'writes',
      summary: `Trash or delete a ${def.type}`,
      async handle({ ctx, user, params, request }) {
        const done = contentValue(await ctx.core.posts.remove(actorOf(user), def.type, params.id, params.force));
        const shape = forContext(def.schema, await shaperOf(def, ctx)(request, done.item), 'edit');
        return { body: done.deleted ? { deleted: true, previous: shape } : shape };
      },
    }),
  ];
}

function revisionRoutes(def: PostTypeDef): DashboardRoute<DashboardCaller>[] {
  const parentArgs = { parent: Type.Integer({ description: 'The ID for the parent of the revision.' }) };
  const base = `/${def.base}/{parent}`;
  return [
    {
      namespace: 'wp/v2',
      path: `${base}/revisions`,
      vars: { parent: DIGITS },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({ ...parentArgs, ...listArgs(['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'], 'date') }),
          permission: 'public',
          summary: `List a ${def.type}'s revisions`,
          async handle({ ctx, user, params, request }) {
            const all = contentValue(await ctx.core.posts.revisions(actorOf(user), def.type, params.parent));
            const paging = params as unknown as { page: number; per_page: number; offset?: number; context: RestContext };
            const { offset, limit } = window(paging);
            const items = all.slice(offset, offset + limit).map((r) => forContext(REVISION_SCHEMA, revisionShape(request, def, r), paging.context));
            return wpPage(request, paging, items, all.length, 'refuse');
          },
        }),
      ],
    },
    {
      namespace: 'wp/v2',
      path: `${base}/revisions/{id}`,
      vars: { parent: DIGITS, id: DIGITS },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({ ...parentArgs, id: Type.Integer(), context: contextArg() }),
          permission: 'public',
          summary: `Read a ${def.type}'s revision`,
          async handle({ ctx, user, params, request }) {
            const r = contentValue(await ctx.core.posts.revision(actorOf(user), def.type, params.parent, params.id));
            return { body: forContext(REVISION_SCHEMA, revisionShape(request, def, r), params.context) };
          },
        }),
        endpoint({
          methods: ['DELETE'],
          args: Type.Object({ ...parentArgs, id: Type.Integer(), force: Type.Boolean({ default: false }) }),
          permission: 'public',
          rate: 'writes',
          summary: `Delete a ${def.type}'s revision`,
          async handle({ ctx, user, params, request }) {
            const r = contentValue(await ctx.core.posts.removeRevision(actorOf(user), def.type, params.parent, params.id, params.force));
            return { body: { deleted: true, previous: forContext(REVISION_SCHEMA, revisionShape(request, def, r), 'edit') } };
          },
        }),
      ],
    },
  ];
}

function autosaveRoutes(def: PostTypeDef): DashboardRoute<DashboardCaller>[] {
  const parentArgs = { parent: Type.Integer({ description: 'The ID for the parent of the autosave.' }) };
  const base = `/${def.base}/{parent}`;
  return [
    {
      namespace: 'wp/v2',
      path: `${base}/autosaves`,
      vars: { parent: DIGITS },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({ ...parentArgs, context: contextArg() }),
          permission: 'public',
          summary: `List a ${def.type}'s autosaves`,
          async handle({ ctx, user, params, request }) {
            const all = contentValue(await ctx.core.posts.autosaves(actorOf(user), def.type, params.parent));
            return { body: all.map((r) => forContext(REVISION_SCHEMA, revisionShape(request, def, r), params.context)) };
          },
        }),
        endpoint({
          methods: ['POST'],
          args: Type.Object({ ...parentArgs, ...writeArgs(def) }),
          permission: 'public',
          rate: 'writes',
          summary: `Autosave a ${def.type}`,
          async handle({ ctx, user, params, request }) {
            const saved = contentValue(await ctx.core.posts.saveAutosave(actorOf(user), def.type, params.parent, inputOf(def, params)));
            const body = saved.type === 'revision' ? revisionShape(request, def, saved) : await shaperOf(def, ctx)(request, saved);
            return { body: forContext(saved.type === 'revision' ? REVISION_SCHEMA : def.schema, body, 'edit') };
          },
        }),
      ],
    },
    {
      namespace: 'wp/v2',
      path: `${base}/autosaves/{id}`,
      vars: { parent: DIGITS, id: DIGITS },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({ ...parentArgs, id: Type.Integer(), context: contextArg() }),
          permission: 'public',
          summary: `Read a ${def.type}'s autosave`,
          async handle({ ctx, user, params, request }) {
            const r = contentValue(await ctx.core.posts.autosave(actorOf(user), def.type, params.parent, params.id));
            return { body: forContext(REVISION_SCHEMA, revisionShape(request, def, r), params.context) };
          },
        }),
      ],
    },
  ];
}

function postTypeRoutes(def: PostTypeDef): DashboardRoute<DashboardCaller>[] {
  return [
    { namespace: 'wp/v2', path: `/${def.base}`, endpoints: collectionEndpoints(def) },
    { namespace: 'wp/v2', path: `/${def.base}/{id}`, vars: { id: DIGITS }, endpoints: itemEndpoints(def) },
    ...revisionRoutes(def),
    ...autosaveRoutes(def),
  ];
}

export const wpPostRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [
  ...postTypeRoutes(POSTS),
  ...postTypeRoutes(PAGES),
  ...postTypeRoutes(BLOCKS),
  ...postTypeRoutes(NAVIGATION),
];
