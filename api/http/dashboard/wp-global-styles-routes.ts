// wp/v2 global-styles, read-only as the specification lists it ("global-styles (with theme, variation and
// revision reads)"): the platform's user global styles item (its id is linked from the theme's answer as
// wp:user-global-styles, WordPress's themes controller link), the theme 'tern''s theme.json and variations, and
// the item's revisions. The rules are the core's (shared/core/content/global-styles.ts).
import { Type } from '@sinclair/typebox';
import escapeHtml from 'escape-html';
import type { GlobalStylesItem } from '../../../shared/core/content/global-styles.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { DIGITS, IDENTIFIER, endpoint, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { apiUrl, contextArg, forContext, wpPage, type ItemSchema, type RestContext } from './wp-collection.js';
import { actorOf, contentError, wpDate } from './wp-content-errors.js';
import type { ContentResult } from '../../../shared/core/content/posts.js';

const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];

const STYLES_SCHEMA: ItemSchema = {
  id: { context: ALL },
  styles: { context: VIEW_EDIT },
  settings: { context: VIEW_EDIT },
  title: { context: ALL, properties: { raw: { context: ['edit'] }, rendered: { context: ALL } } },
};

/** The value, or the WordPress error: a missing item is rest_global_styles_not_found, a missing theme rest_theme_not_found. */
function stylesValue<T>(result: ContentResult<T>, missing: 'styles' | 'theme' = 'styles'): T {
  if (result.ok) return result.value;
  if (result.refusal.kind === 'not_found') {
    throw missing === 'theme'
      ? dashboardError('rest_theme_not_found', 'Theme not found.')
      : dashboardError('rest_global_styles_not_found', 'No global styles config exist with that id.');
  }
  throw contentError(result.refusal);
}

function stylesShape(req: Incoming, s: GlobalStylesItem): Record<string, unknown> {
  return {
    id: s.item.id,
    styles: s.styles,
    settings: s.settings,
    title: { raw: s.item.title, rendered: escapeHtml(s.item.title) },
    _links: {
      self: [{ href: apiUrl(req, `/wp/v2/global-styles/${s.item.id}`) }],
      'version-history': [{ href: apiUrl(req, `/wp/v2/global-styles/${s.item.id}/revisions`) }],
    },
  };
}

function revisionShape(s: GlobalStylesItem): Record<string, unknown> {
  return {
    author: s.item.authorId ?? 0,
    date: wpDate(s.item.date),
    date_gmt: wpDate(s.item.date),
    id: s.item.id,
    modified: wpDate(s.item.modified),
    modified_gmt: wpDate(s.item.modified),
    parent: s.item.parentId ?? 0,
    styles: s.styles,
    settings: s.settings,
  };
}

const stylesheet = { stylesheet: Type.String({ description: 'The theme identifier' }) };

export const wpGlobalStylesRoutes: ReadonlyArray<DashboardRoute<DashboardCaller>> = [
  {
    namespace: 'wp/v2',
    path: '/global-styles/themes/{stylesheet}',
    vars: { stylesheet: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object(stylesheet),
        permission: 'public',
        summary: "The theme's theme.json",
        async handle({ ctx, params, request }) {
          const theme = stylesValue(ctx.core.globalStyles.theme(params.stylesheet), 'theme');
          const user = await ctx.core.globalStyles.platform();
          return {
            body: {
              settings: theme.settings,
              styles: theme.styles,
              _links: {
                self: [{ href: apiUrl(request, `/wp/v2/global-styles/themes/${params.stylesheet}`) }],
                'wp:user-global-styles': [{ href: apiUrl(request, `/wp/v2/global-styles/${user.id}`) }],
              },
            },
          };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/global-styles/themes/{stylesheet}/variations',
    vars: { stylesheet: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object(stylesheet),
        permission: 'public',
        summary: "The theme's style variations",
        handle: ({ ctx, params }) => Promise.resolve({ body: stylesValue(ctx.core.globalStyles.variations(params.stylesheet), 'theme') }),
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/global-styles/{id}',
    vars: { id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'Read the global styles',
        async handle({ ctx, user, params, request }) {
          const found = stylesValue(await ctx.core.globalStyles.read(actorOf(user), params.id, params.context === 'edit'));
          return { body: forContext(STYLES_SCHEMA, stylesShape(request, found), params.context) };
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/global-styles/{parent}/revisions',
    vars: { parent: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({
          parent: Type.Integer(),
          context: contextArg(),
          page: Type.Integer({ default: 1, minimum: 1 }),
          per_page: Type.Integer({ default: 10, minimum: 1, maximum: 100 }),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        permission: 'public',
        summary: 'The revisions of the global styles',
        async handle({ ctx, user, params, request }) {
          const all = stylesValue(await ctx.core.globalStyles.revisions(actorOf(user), params.parent));
          const start = params.offset ?? (params.page - 1) * params.per_page;
          const items = all.slice(start, start + params.per_page).map(revisionShape);
          return wpPage(request, params, items, all.length, 'refuse');
        },
      }),
    ],
  },
  {
    namespace: 'wp/v2',
    path: '/global-styles/{parent}/revisions/{id}',
    vars: { parent: DIGITS, id: DIGITS },
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ parent: Type.Integer(), id: Type.Integer(), context: contextArg() }),
        permission: 'public',
        summary: 'A revision of the global styles',
        async handle({ ctx, user, params }) {
          return { body: revisionShape(stylesValue(await ctx.core.globalStyles.revision(actorOf(user), params.parent, params.id))) };
        },
      }),
    ],
  },
];
