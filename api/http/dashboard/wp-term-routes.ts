// wp/v2 categories and tags, and the read-only descriptions of the content namespace (types, statuses,
// taxonomies), as WordPress's terms, post types, statuses and taxonomies controllers answer them. A page past the
// end of a term list is an empty list (WordPress's terms controller); DELETE needs force (terms have no trash).
import { Type } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import type { Taxonomy, Term } from '../../../shared/domain/content.js';
import type { TermQuery } from '../../../shared/core/content/terms.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { DIGITS, IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { apiUrl, contextArg, forContext, listArgs, window, wpPage, type ItemSchema, type RestContext } from './wp-collection.js';
import { actorOf, contentValue } from './wp-content-errors.js';

interface TaxonomyDef {
  taxonomy: Taxonomy;
  base: string;
  name: string;
  hierarchical: boolean;
  types: readonly string[];
}

const CATEGORIES: TaxonomyDef = { taxonomy: 'category', base: 'categories', name: 'Categories', hierarchical: true, types: ['post'] };
const TAGS: TaxonomyDef = { taxonomy: 'post_tag', base: 'tags', name: 'Tags', hierarchical: false, types: ['post'] };
/** The block editor's pattern categories: a flat taxonomy of the wp_block type, terms like tags. */
const PATTERN_CATEGORIES: TaxonomyDef = {
  taxonomy: 'wp_pattern_category',
  base: 'wp_pattern_category',
  name: 'Pattern Categories',
  hierarchical: false,
  types: ['wp_block'],
};
const DESCRIBED: readonly TaxonomyDef[] = [CATEGORIES, TAGS, PATTERN_CATEGORIES];

const ALL: readonly RestContext[] = ['view', 'embed', 'edit'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];

const TERM_SCHEMA: ItemSchema = {
  id: { context: ALL },
  count: { context: VIEW_EDIT },
  description: { context: VIEW_EDIT },
  link: { context: ALL },
  name: { context: ALL },
  slug: { context: ALL },
  taxonomy: { context: ALL },
  parent: { context: VIEW_EDIT },
  meta: { context: VIEW_EDIT },
};

function termShape(req: Incoming, def: TaxonomyDef, term: Term): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: term.id,
    count: term.count,
    description: term.description,
    link: `${req.origin}/news/${def.taxonomy === 'category' ? 'category' : def.taxonomy === 'post_tag' ? 'tag' : def.taxonomy}/${term.slug}`,
    name: term.name,
    slug: term.slug,
    taxonomy: def.taxonomy,
    meta: [],
    _links: {
      self: [{ href: apiUrl(req, `/wp/v2/${def.base}/${term.id}`) }],
      collection: [{ href: apiUrl(req, `/wp/v2/${def.base}`) }],
      about: [{ href: apiUrl(req, `/wp/v2/taxonomies/${def.taxonomy}`) }],
      'wp:post_type': [{ href: apiUrl(req, `/wp/v2/posts?${def.base}=${term.id}`) }],
      ...(def.hierarchical && term.parentId ? { up: [{ href: apiUrl(req, `/wp/v2/${def.base}/${term.parentId}`), embeddable: true }] } : {}),
    },
  };
  if (def.hierarchical) data.parent = term.parentId ?? 0;
  return data;
}

/** A list's args as the core's term query. */
function termQueryOf(
  def: TaxonomyDef,
  p: Record<string, unknown> & { page: number; per_page: number; offset?: number; context: RestContext },
): TermQuery & { edit: boolean } {
  const orderby = p.orderby === 'include_slugs' ? 'slug' : (p.orderby as TermQuery['orderby']);
  return {
    edit: p.context === 'edit',
    taxonomy: def.taxonomy,
    search: p.search as string | undefined,
    include: p.include as number[],
    exclude: p.exclude as number[],
    slugs: p.slug as string[] | undefined,
    parent: p.parent as number | undefined,
    post: p.post as number | undefined,
    hideEmpty: p.hide_empty as boolean,
    orderby,
    order: p.order as 'asc' | 'desc',
    ...window(p),
  };
}

const TERM_ORDERBY = ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'] as const;

const writeArgs = (def: TaxonomyDef) => ({
  description: Type.Optional(Type.String({ description: 'HTML description of the term.' })),
  slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the term unique to its type.' })),
  meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
  ...(def.hierarchical ? { parent: Type.Optional(Type.Integer({ description: 'The parent term ID.' })) } : {}),
});

const idArgs = { id: Type.Integer({ description: 'Unique identifier for the term.' }) };

function taxonomyRoutes(def: TaxonomyDef): DashboardRoute<DashboardCaller>[] {
  return [
    {
      namespace: 'wp/v2',
      path: `/${def.base}`,
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({
            ...listArgs(TERM_ORDERBY, 'name', { defaultOrder: 'asc' }),
            hide_empty: Type.Boolean({ default: false }),
            post: Type.Optional(Type.Integer()),
            ...(def.hierarchical ? { parent: Type.Optional(Type.Integer()) } : {}),
          }),
          permission: 'public',
          summary: `List ${def.base}`,
          async handle({ ctx, user, params, request }) {
            const p = params as unknown as Record<string, unknown> & { page: number; per_page: number; offset?: number; context: RestContext };
            const query = termQueryOf(def, p);
            const found = contentValue(await ctx.core.terms.list(actorOf(user), query), 'term');
            const items = found.terms.map((t) => forContext(TERM_SCHEMA, termShape(request, def, t), p.context));
            return wpPage(request, p, items, found.total, 'empty');
          },
        }),
        endpoint({
          methods: ['POST'],
          args: Type.Object({ name: Type.String({ description: 'HTML title for the term.', minLength: 1 }), ...writeArgs(def) }),
          permission: 'public',
          rate: 'writes',
          summary: `Create a ${def.taxonomy}`,
          async handle({ ctx, user, params, request }) {
            const p = params as Record<string, unknown> & { name: string };
            const created = contentValue(
              await ctx.core.terms.create(actorOf(user), def.taxonomy, {
                name: p.name,
                slug: p.slug as string | undefined,
                description: p.description as string | undefined,
                parentId: (p.parent as number | undefined) || null,
              }),
              'term',
            );
            return {
              status: 201,
              body: forContext(TERM_SCHEMA, termShape(request, def, created), 'edit'),
              headers: { Location: apiUrl(request, `/wp/v2/${def.base}/${created.id}`) },
            };
          },
        }),
      ],
    },
  ];
}

function termItemRoutes(def: TaxonomyDef): DashboardRoute<DashboardCaller>[] {
  return [
    {
      namespace: 'wp/v2',
      path: `/${def.base}/{id}`,
      vars: { id: DIGITS },
      endpoints: [
        endpoint({
          methods: ['GET'],
          args: Type.Object({ ...idArgs, context: contextArg() }),
          permission: 'public',
          summary: `Read a ${def.taxonomy}`,
          async handle({ ctx, user, params, request }) {
            const term = contentValue(await ctx.core.terms.read(actorOf(user), def.taxonomy, params.id, params.context === 'edit'), 'term');
            return { body: forContext(TERM_SCHEMA, termShape(request, def, term), params.context) };
          },
        }),
        endpoint({
          methods: ['POST', 'PUT', 'PATCH'],
          args: Type.Object({ ...idArgs, name: Type.Optional(Type.String({ minLength: 1 })), ...writeArgs(def) }),
          permission: 'public',
          rate: 'writes',
          summary: `Update a ${def.taxonomy}`,
          async handle({ ctx, user, params, request }) {
            const p = params as Record<string, unknown> & { id: number };
            const parent = p.parent === undefined ? undefined : (p.parent as number) || null;
            const input = { name: p.name as string | undefined, slug: p.slug as string | undefined, description: p.description as string | undefined, parentId: parent };
            const term = contentValue(await ctx.core.terms.update(actorOf(user), def.taxonomy, p.id, input), 'term');
            return { body: forContext(TERM_SCHEMA, termShape(request, def, term), 'edit') };
          },
        }),
        endpoint({
          methods: ['DELETE'],
          args: Type.Object({ ...idArgs, force: Type.Boolean({ default: false, description: 'Required to be true, as terms do not support trashing.' }) }),
          permission: 'public',
          rate: 'writes',
          summary: `Delete a ${def.taxonomy}`,
          async handle({ ctx, user, params, request }) {
            const term = contentValue(await ctx.core.terms.remove(actorOf(user), def.taxonomy, params.id, params.force), 'term');
            return { body: { deleted: true, previous: forContext(TERM_SCHEMA, termShape(request, def, term), 'edit') } };
          },
        }),
      ],
    },
  ];
}

// ---- the namespace's descriptions: types, statuses, taxonomies (read-only) ----

interface TypeDescription {
  slug: string;
  name: string;
  description: string;
  hierarchical: boolean;
  rest_base: string;
  taxonomies: string[];
  icon: string;
}

/** The platform's menus' items and fonts (wp-menu-routes.ts, wp-font-routes.ts). */
const APPEARANCE_TYPES: readonly TypeDescription[] = [
  {
    slug: 'nav_menu_item',
    name: 'Navigation Menu Items',
    description: 'The items of the help menu and the docs navigation.',
    hierarchical: true,
    rest_base: 'menu-items',
    taxonomies: ['nav_menu'],
    icon: 'dashicons-menu',
  },
  {
    slug: 'wp_font_family',
    name: 'Font Families',
    description: 'The font library.',
    hierarchical: false,
    rest_base: 'font-families',
    taxonomies: [],
    icon: 'dashicons-editor-textcolor',
  },
];

const TYPES: readonly TypeDescription[] = [
  {
    slug: 'post',
    name: 'Posts',
    description: 'Announcements and changelog published to the accounts.',
    hierarchical: false,
    rest_base: 'posts',
    taxonomies: ['category', 'post_tag'],
    icon: 'dashicons-admin-post',
  },
  { slug: 'page', name: 'Pages', description: 'Documentation and legal pages.', hierarchical: true, rest_base: 'pages', taxonomies: [], icon: 'dashicons-admin-page' },
  ...APPEARANCE_TYPES,
];

function typeShape(req: Incoming, t: TypeDescription, context: RestContext): Record<string, unknown> {
  const data = {
    capabilities: { edit_posts: 'edit_posts', publish_posts: 'publish_posts', read: 'read' },
    description: t.description,
    hierarchical: t.hierarchical,
    has_archive: false,
    viewable: true,
    labels: { name: t.name, singular_name: t.name.replace(/s$/, '') },
    name: t.name,
    slug: t.slug,
    icon: t.icon,
    supports: { title: true, editor: true, author: true, excerpt: true, revisions: true, autosave: true },
    taxonomies: t.taxonomies,
    rest_base: t.rest_base,
    rest_namespace: 'wp/v2',
    template: [],
    template_lock: false,
    _links: { collection: [{ href: apiUrl(req, '/wp/v2/types') }], 'wp:items': [{ href: apiUrl(req, `/wp/v2/${t.rest_base}`) }] },
  };
  const schema: ItemSchema = {
    capabilities: { context: ['edit'] },
    description: { context: ['view', 'edit'] },
    hierarchical: { context: ['view', 'edit'] },
    has_archive: { context: ['view', 'edit'] },
    viewable: { context: ['edit'] },
    labels: { context: ['edit'] },
    name: { context: ALL },
    slug: { context: ALL },
    icon: { context: ALL },
    supports: { context: ['edit'] },
    taxonomies: { context: ['view', 'edit'] },
    rest_base: { context: ALL },
    rest_namespace: { context: ALL },
    template: { context: ['view', 'edit'] },
    template_lock: { context: ['view', 'edit'] },
  };
  return forContext(schema, data, context);
}

const STATUSES: ReadonlyArray<{ slug: string; name: string; public: boolean; show_in_list: boolean }> = [
  { slug: 'publish', name: 'Published', public: true, show_in_list: true },
  { slug: 'future', name: 'Scheduled', public: false, show_in_list: true },
  { slug: 'draft', name: 'Draft', public: false, show_in_list: true },
  { slug: 'pending', name: 'Pending', public: false, show_in_list: true },
  { slug: 'private', name: 'Private', public: false, show_in_list: true },
  { slug: 'trash', name: 'Trash', public: false, show_in_list: false },
];

function statusShape(req: Incoming, s: (typeof STATUSES)[number], context: RestContext): Record<string, unknown> {
  const data = {
    name: escapeHtml(s.name),
    private: s.slug === 'private',
    protected: ['future', 'draft', 'pending'].includes(s.slug),
    public: s.public,
    queryable: s.public,
    show_in_list: s.show_in_list,
    slug: s.slug,
    date_floating: ['draft', 'pending'].includes(s.slug),
    _links: { archives: [{ href: apiUrl(req, `/wp/v2/posts?status=${s.slug}`) }] },
  };
  const edit: readonly RestContext[] = ['edit'];
  return forContext(
    {
      private: { context: edit },
      protected: { context: edit },
      show_in_list: { context: edit },
      date_floating: { context: ['view', 'edit'] },
      queryable: { context: ['view', 'edit'] },
      public: { context: ['view', 'edit'] },
    },
    data,
    context,
  );
}

function taxonomyShape(req: Incoming, t: TaxonomyDef, context: RestContext): Record<string, unknown> {
  const data = {
    name: t.name,
    slug: t.taxonomy,
    description: '',
    types: t.types,
    hierarchical: t.hierarchical,
    rest_base: t.base,
    rest_namespace: 'wp/v2',
    capabilities: { manage_terms: 'manage_categories', edit_terms: 'manage_categories', delete_terms: 'manage_categories', assign_terms: 'edit_posts' },
    labels: { name: t.name },
    show_cloud: !t.hierarchical,
    visibility: { public: true, publicly_queryable: true, show_admin_column: true, show_in_nav_menus: true, show_in_quick_edit: true, show_ui: true },
    _links: { collection: [{ href: apiUrl(req, '/wp/v2/taxonomies') }], 'wp:items': [{ href: apiUrl(req, `/wp/v2/${t.base}`) }] },
  };
  const edit: readonly RestContext[] = ['edit'];
  return forContext(
    {
      capabilities: { context: edit },
      labels: { context: edit },
      show_cloud: { context: edit },
      visibility: { context: edit },
      description: { context: ['view', 'edit'] },
      hierarchical: { context: ['view', 'edit'] },
      types: { context: ['view', 'edit'] },
    },
    data,
    context,
  );
}

/** The edit context of the descriptions is for those who may write content (WordPress: edit_posts). */
function editAllowed(user: DashboardCaller | undefined, context: RestContext): void {
  if (context !== 'edit') return;
  const actor = actorOf(user);
  if (actor.kind === 'operator' || (actor.kind === 'member' && actor.canWrite)) return;
  contentValue({ ok: false, refusal: { kind: 'forbidden', code: 'rest_forbidden_context', anonymous: actor.kind === 'anonymous' } });
}

const keyed = <T>(items: readonly T[], key: (t: T) => string, shape: (t: T) => Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(items.map((t) => [key(t), shape(t)]));

const descriptionRoutes: DashboardRoute<DashboardCaller>[] = [
  {
    namespace: 'wp/v2',
    path: '/types',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ context: contextArg() }),
        permission: 'public',
        summary: 'The post types',
        handle: ({ user, params, request }) => {
          editAllowed(user, params.context);
          return Promise.resolve({
            body: keyed(
              TYPES,
              (t) => t.slug,
              (t) => typeShape(request, t, params.context),
            ),
          });
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/types/{type}',
    vars: { type: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ type: Type.String(), context: contextArg() }),
        permission: 'public',
        summary: 'A post type',
        handle: ({ user, params, request }) => {
          const found = TYPES.find((t) => t.slug === params.type);
          if (!found) throw dashboardError('rest_type_invalid', 'Invalid post type.');
          editAllowed(user, params.context);
          return Promise.resolve({ body: typeShape(request, found, params.context) });
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/statuses',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ context: contextArg() }),
        permission: 'public',
        summary: 'The post statuses',
        handle: ({ user, params, request }) => {
          editAllowed(user, params.context);
          const actor = actorOf(user);
          // As WordPress: a caller who may not edit sees only the public statuses.
          const shown = actor.kind === 'operator' || (actor.kind === 'member' && actor.canWrite) ? STATUSES : STATUSES.filter((s) => s.public);
          return Promise.resolve({
            body: keyed(
              shown,
              (s) => s.slug,
              (s) => statusShape(request, s, params.context),
            ),
          });
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/statuses/{status}',
    vars: { status: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ status: Type.String(), context: contextArg() }),
        permission: 'public',
        summary: 'A post status',
        handle: ({ user, params, request }) => {
          const found = STATUSES.find((s) => s.slug === params.status);
          if (!found) throw dashboardError('rest_status_invalid', 'Invalid status.');
          const actor = actorOf(user);
          if (!found.public && !(actor.kind === 'operator' || (actor.kind === 'member' && actor.canWrite))) {
            contentValue({ ok: false, refusal: { kind: 'forbidden', code: 'rest_cannot_read', anonymous: actor.kind === 'anonymous' } });
          }
          editAllowed(user, params.context);
          return Promise.resolve({ body: statusShape(request, found, params.context) });
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/taxonomies',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ context: contextArg(), type: Type.Optional(Type.String()) }),
        permission: 'public',
        summary: 'The taxonomies',
        handle: ({ user, params, request }) => {
          editAllowed(user, params.context);
          const shown = DESCRIBED.filter((t) => params.type === undefined || t.types.includes(params.type));
          return Promise.resolve({
            body: keyed(
              shown,
              (t) => t.taxonomy,
              (t) => taxonomyShape(request, t, params.context),
            ),
          });
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/taxonomies/{taxonomy}',
    vars: { taxonomy: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ taxonomy: Type.String(), context: contextArg() }),
        permission: 'public',
        summary: 'A taxonomy',
        handle: ({ user, params, request }) => {
          const found = DESCRIBED.find((t) => t.taxonomy === params.taxonomy);
          if (!found) throw dashboardError('rest_taxonomy_invalid', 'Invalid taxonomy.');
          editAllowed(user, params.context);
          return Promise.resolve({ body: taxonomyShape(request, found, params.context) });
        },
      }),
    ],
  },
];

export const wpTermRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [
  ...taxonomyRoutes(CATEGORIES),
  ...termItemRoutes(CATEGORIES),
  ...taxonomyRoutes(TAGS),
  ...termItemRoutes(TAGS),
  ...taxonomyRoutes(PATTERN_CATEGORIES),
  ...termItemRoutes(PATTERN_CATEGORIES),
  ...descriptionRoutes,
];
