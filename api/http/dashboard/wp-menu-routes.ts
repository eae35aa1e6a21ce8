// wp/v2 menus and menu-items: the platform's help menu and documentation navigation, as WordPress's menus and
// menu items controllers answer them. A menu is a nav_menu term (its locations and auto_add are not kept: Tern's
// pages place its menus themselves, docs/decisions.md); a menu item is a nav_menu_item linked to one menu. The
// rules are the core's (terms.ts, menus.ts); this file maps args to its inputs and its outcomes to WordPress's
// answers. A menu item's url is refused unless http(s) or a site path, and escaped on output.
import { Type } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import type { ContentItem, PostStatus, Term } from '../../../shared/domain/content.js';
import { POST_STATUSES, SETTABLE_STATUSES } from '../../../shared/domain/content.js';
import { MENU_ITEM_KINDS, menuItemFields, type MenuItemInput, type MenuRefusal } from '../../../shared/core/content/menus.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { DIGITS, endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { apiUrl, contextArg, forContext, listArgs, window, wpPage, type ItemSchema, type RestContext } from './wp-collection.js';
import { actorOf, contentError, contentValue } from './wp-content-errors.js';

const ALL: readonly RestContext[] = ['view', 'embed', 'edit'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];
const EDIT: readonly RestContext[] = ['edit'];

/** The value of a menu outcome, or its WordPress error thrown (a refused field value keeps its own code). */
function menuValue<T>(result: { ok: true; value: T } | { ok: false; refusal: MenuRefusal }, item: 'post' | 'term' = 'post'): T {
  if (result.ok) return result.value;
  const refusal = result.refusal;
  if (refusal.kind === 'invalid') throw dashboardError(refusal.code, refusal.message);
  throw contentError(refusal, item);
}

// ---- menus: nav_menu terms ----

const MENU_SCHEMA: ItemSchema = {
  id: { context: ALL },
  description: { context: VIEW_EDIT },
  name: { context: ALL },
  slug: { context: ALL },
  meta: { context: VIEW_EDIT },
  locations: { context: VIEW_EDIT },
  auto_add: { context: VIEW_EDIT },
};

function menuShape(req: Incoming, term: Term): Record<string, unknown> {
  return {
    id: term.id,
    description: term.description,
    name: term.name,
    slug: term.slug,
    meta: [],
    locations: [],
    auto_add: false,
    _links: {
      self: [{ href: apiUrl(req, `/wp/v2/menus/${term.id}`) }],
      collection: [{ href: apiUrl(req, '/wp/v2/menus') }],
      about: [{ href: apiUrl(req, '/wp/v2/taxonomies/nav_menu') }],
      'wp:post_type': [{ href: apiUrl(req, `/wp/v2/menu-items?menus=${term.id}`) }],
    },
  };
}

const menuWriteArgs = {
  description: Type.Optional(Type.String({ description: 'HTML description of the term.' })),
  slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the term unique to its type.' })),
  meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
  locations: Type.Optional(Type.Array(Type.String(), { description: 'The locations assigned to the menu (not kept).' })),
  auto_add: Type.Optional(Type.Boolean({ description: 'Whether to automatically add top level pages to this menu (not kept).' })),
};

const MENU_ORDERBY = ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'] as const;

const menuRoutes: DashboardRoute<DashboardCaller>[] = [
  {
    namespace: 'wp/v2',
    path: '/menus',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({
          ...listArgs(MENU_ORDERBY, 'name', { defaultOrder: 'asc' }),
          hide_empty: Type.Boolean({ default: false }),
          post: Type.Optional(Type.Integer()),
        }),
        permission: 'public',
        summary: 'List menus',
        async handle({ ctx, user, params, request }) {
          const p = params as unknown as Record<string, unknown> & { page: number; per_page: number; offset?: number; context: RestContext };
          const orderby = p.orderby === 'include_slugs' ? 'slug' : (p.orderby as 'name');
          const found = contentValue(
            await ctx.core.terms.list(actorOf(user), {
              edit: p.context === 'edit',
              taxonomy: 'nav_menu',
              search: p.search as string | undefined,
              include: p.include as number[],
              exclude: p.exclude as number[],
              slugs: p.slug as string[] | undefined,
              post: p.post as number | undefined,
              hideEmpty: p.hide_empty as boolean,
              orderby,
              order: p.order as 'asc' | 'desc',
              ...window(p),
            }),
            'term',
          );
          return wpPage(
            request,
            p,
            found.terms.map((t) => forContext(MENU_SCHEMA, menuShape(request, t), p.context)),
            found.total,
            'empty',
          );
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({ name: Type.String({ description: 'HTML title for the term.', minLength: 1 }), ...menuWriteArgs }),
        permission: 'public',
        rate: 'writes',
        summary: 'Create a menu',
        async handle({ ctx, user, params, request }) {
          const created = contentValue(
            await ctx.core.terms.create(actorOf(user), 'nav_menu', { name: params.name, slug: params.slug, description: params.description }),
            'term',
          );
          return {
            status: 201,
            body: forContext(MENU_SCHEMA, menuShape(request, created), 'edit'),
            headers: { Location: apiUrl(request, `/wp/v2/menus/${created.id}`) },
          };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/menus/{id}',
    vars: { id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'Read a menu',
        async handle({ ctx, user, params, request }) {
          const term = contentValue(await ctx.core.terms.read(actorOf(user), 'nav_menu', params.id, params.context === 'edit'), 'term');
          return { body: forContext(MENU_SCHEMA, menuShape(request, term), params.context) };
        },
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: Type.Object({ id: Type.Integer(), name: Type.Optional(Type.String({ minLength: 1 })), ...menuWriteArgs }),
        permission: 'public',
        rate: 'writes',
        summary: 'Update a menu',
        async handle({ ctx, user, params, request }) {
          const input = { name: params.name, slug: params.slug, description: params.description };
          const term = contentValue(await ctx.core.terms.update(actorOf(user), 'nav_menu', params.id, input), 'term');
          return { body: forContext(MENU_SCHEMA, menuShape(request, term), 'edit') };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ id: Type.Integer(), force: Type.Boolean({ default: false, description: 'Required to be true, as terms do not support trashing.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Delete a menu',
        async handle({ ctx, user, params, request }) {
          const term = contentValue(await ctx.core.terms.remove(actorOf(user), 'nav_menu', params.id, params.force), 'term');
          return { body: { deleted: true, previous: forContext(MENU_SCHEMA, menuShape(request, term), 'edit') } };
        },
      }),
    ],
  },
];

// ---- menu items: nav_menu_item items ----

const MENU_ITEM_SCHEMA: ItemSchema = {
  id: { context: ALL },
  title: { context: ALL, properties: { raw: { context: EDIT }, rendered: { context: ALL } } },
  status: { context: VIEW_EDIT },
  url: { context: ALL },
  attr_title: { context: ALL },
  description: { context: ALL },
  type: { context: ALL },
  type_label: { context: ALL },
  object: { context: ALL },
  object_id: { context: ALL },
  parent: { context: ALL },
  menu_order: { context: ALL },
  target: { context: ALL },
  classes: { context: ALL },
  xfn: { context: ALL },
  invalid: { context: ALL },
  meta: { context: VIEW_EDIT },
  menus: { context: ALL },
};

const TYPE_LABELS: Readonly<Record<string, string>> = { custom: 'Custom Link', post_type: 'Page', taxonomy: 'Category' };

function menuItemShape(req: Incoming, item: ContentItem): Record<string, unknown> {
  const f = menuItemFields(item);
  const menu = item.termIds[0] ?? 0;
  return {
    id: item.id,
    title: { raw: item.title, rendered: escapeHtml(item.title) },
    status: item.status,
    // Stored only once refused unless http(s) or a site path; escaped as WordPress's esc_url does for output.
    url: escapeHtml(f.url),
    attr_title: f.attrTitle,
    description: f.description,
    type: f.kind,
    type_label: TYPE_LABELS[f.kind],
    object: f.object,
    object_id: f.objectId,
    parent: item.parentId ?? 0,
    menu_order: item.menuOrder,
    target: f.target,
    classes: f.classes,
    xfn: f.xfn,
    invalid: false,
    meta: [],
    menus: menu,
    _links: {
      self: [{ href: apiUrl(req, `/wp/v2/menu-items/${item.id}`) }],
      collection: [{ href: apiUrl(req, '/wp/v2/menu-items') }],
      about: [{ href: apiUrl(req, '/wp/v2/types/nav_menu_item') }],
      ...(menu ? { 'wp:term': [{ taxonomy: 'nav_menu', embeddable: true, href: apiUrl(req, `/wp/v2/menus?post=${item.id}`) }] } : {}),
    },
  };
}

const menuItemArgs = {
  title: Type.Optional(Type.Union([Type.String(), Type.Object({ raw: Type.String() }, { additionalProperties: true })])),
  status: Type.Optional(oneOf(SETTABLE_STATUSES, { description: 'A named status for the object.' })),
  url: Type.Optional(Type.String({ description: 'The URL to which this menu item points: http(s) or a path on the site.' })),
  attr_title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  type: Type.Optional(oneOf(MENU_ITEM_KINDS, { description: 'The family of objects originally represented.' })),
  object: Type.Optional(Type.String()),
  object_id: Type.Optional(Type.Integer({ minimum: 0 })),
  parent: Type.Optional(Type.Integer({ minimum: 0 })),
  menu_order: Type.Optional(Type.Integer({ minimum: 1 })),
  target: Type.Optional(oneOf(['_blank', ''] as const)),
  classes: Type.Optional(Type.Array(Type.String())),
  xfn: Type.Optional(Type.Array(Type.String())),
  meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
};

function menuItemInputOf(p: Record<string, unknown>): MenuItemInput {
  const title = p.title === undefined ? undefined : typeof p.title === 'string' ? p.title : (p.title as { raw: string }).raw;
  return {
    title,
    status: p.status as MenuItemInput['status'],
    url: p.url as string | undefined,
    attrTitle: p.attr_title as string | undefined,
    description: p.description as string | undefined,
    kind: p.type as MenuItemInput['kind'],
    object: p.object as string | undefined,
    objectId: p.object_id as number | undefined,
    parentId: p.parent === undefined ? undefined : (p.parent as number) || null,
    menuOrder: p.menu_order as number | undefined,
    target: p.target as MenuItemInput['target'],
    classes: p.classes as string[] | undefined,
    xfn: p.xfn as string[] | undefined,
    menuId: p.menus as number | undefined,
  };
}

const MENU_ITEM_ORDERBY = ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', 'menu_order'] as const;

const menuItemRoutes: DashboardRoute<DashboardCaller>[] = [
  {
    namespace: 'wp/v2',
    path: '/menu-items',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({
          ...listArgs(MENU_ITEM_ORDERBY, 'menu_order', { defaultOrder: 'asc' }),
          per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 100, minimum: 1, maximum: 100 }),
          status: Type.Array(oneOf(POST_STATUSES), { default: ['publish'] }),
          menus: Type.Optional(Type.Array(Type.Integer(), { description: 'Limit result set to items with specific menus assigned.' })),
          menu_order: Type.Optional(Type.Integer()),
        }),
        permission: 'public',
        summary: 'List menu items',
        async handle({ ctx, user, params, request }) {
          const p = params as unknown as Record<string, unknown> & { page: number; per_page: number; offset?: number; context: RestContext };
          const orderby = ['relevance', 'include_slugs'].includes(p.orderby as string) ? 'menu_order' : (p.orderby as 'menu_order');
          const found = contentValue(
            await ctx.core.menuItems.list(actorOf(user), {
              edit: p.context === 'edit',
              statuses: p.status as PostStatus[],
              search: p.search as string | undefined,
              include: p.include as number[],
              exclude: p.exclude as number[],
              slugs: p.slug as string[] | undefined,
              menus: p.menus as number[] | undefined,
              orderby,
              order: p.order as 'asc' | 'desc',
              ...window(p),
            }),
          );
          const items = found.items.map((i) => forContext(MENU_ITEM_SCHEMA, menuItemShape(request, i), p.context));
          return wpPage(request, p, items, found.total, 'refuse');
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({ ...menuItemArgs, menus: Type.Integer({ description: 'The nav_menu term the item belongs to.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Create a menu item',
        async handle({ ctx, user, params, request }) {
          const created = menuValue(await ctx.core.menuItems.create(actorOf(user), menuItemInputOf(params)));
          return {
            status: 201,
            body: forContext(MENU_ITEM_SCHEMA, menuItemShape(request, created), 'edit'),
            headers: { Location: apiUrl(request, `/wp/v2/menu-items/${created.id}`) },
          };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/menu-items/{id}',
    vars: { id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'Read a menu item',
        async handle({ ctx, user, params, request }) {
          const item = contentValue(await ctx.core.menuItems.read(actorOf(user), params.id, params.context === 'edit'));
          return { body: forContext(MENU_ITEM_SCHEMA, menuItemShape(request, item), params.context) };
        },
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        args: Type.Object({ id: Type.Integer(), ...menuItemArgs, menus: Type.Optional(Type.Integer()) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Update a menu item',
        async handle({ ctx, user, params, request }) {
          const item = menuValue(await ctx.core.menuItems.update(actorOf(user), params.id, menuItemInputOf(params)));
          return { body: forContext(MENU_ITEM_SCHEMA, menuItemShape(request, item), 'edit') };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ id: Type.Integer(), force: Type.Boolean({ default: false, description: 'Required to be true, as menu items do not support trashing.' }) }),
        permission: 'public',
        rate: 'writes',
        summary: 'Delete a menu item',
        async handle({ ctx, user, params, request }) {
          const item = menuValue(await ctx.core.menuItems.remove(actorOf(user), params.id, params.force));
          return { body: { deleted: true, previous: forContext(MENU_ITEM_SCHEMA, menuItemShape(request, item), 'edit') } };
        },
      }),
    ],
  },
];

export const wpMenuRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [...menuRoutes, ...menuItemRoutes];
