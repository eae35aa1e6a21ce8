// The content namespace's (wp/v2) collection conventions, shared by every controller: the collection args
// WordPress's controllers declare (context, page, per_page, search, include, exclude, offset, order, orderby,
// slug), an item's fields filtered by the context its schema gives each (filter_response_by_context), and the
// paged reply with WordPress's headers. A page past the end is refused for post types and empty for terms and
// users, as WordPress answers it.
import { Type, type TProperties } from '@sinclair/typebox';
import qs from 'qs';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError, MESSAGES } from '../../pipeline/dashboard-errors.js';
import { restUrl } from './index-document.js';
import { oneOf } from './collection.js';
import type { Reply } from './route.js';

export const CONTEXTS = ['view', 'embed', 'edit'] as const;
export type RestContext = (typeof CONTEXTS)[number];

export const contextArg = (fallback: RestContext = 'view') =>
  oneOf(CONTEXTS, { default: fallback, description: 'Scope under which the request is made; determines fields present in response.' });

const ids = (description: string) => Type.Array(Type.Integer(), { description, default: [] });

/** The list args of a WordPress collection; `orderby` values and default differ per collection. */
export function listArgs(orderby: readonly string[], defaultOrderby: string, options: { perPageMax?: number; defaultOrder?: 'asc' | 'desc' } = {}): TProperties {
  return {
    context: contextArg(),
    page: Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
    per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: options.perPageMax ?? 100 }),
    search: Type.Optional(Type.String({ description: 'Limit results to those matching a string.' })),
    exclude: ids('Ensure result set excludes specific IDs.'),
    include: ids('Limit result set to specific IDs.'),
    offset: Type.Optional(Type.Integer({ description: 'Offset the result set by a specific number of items.', minimum: 0 })),
    order: oneOf(['asc', 'desc'] as const, { description: 'Order sort attribute ascending or descending.', default: options.defaultOrder ?? 'desc' }),
    orderby: oneOf(orderby, { description: 'Sort collection by attribute.', default: defaultOrderby }),
    slug: Type.Optional(Type.Array(Type.String(), { description: 'Limit result set to items with one or more specific slugs.' })),
  };
}

/** A field of an item schema: the contexts it is shown in, and for an object its own fields (each with theirs). */
export interface FieldSchema {
  context: readonly RestContext[];
  properties?: Readonly<Record<string, FieldSchema>>;
}
export type ItemSchema = Readonly<Record<string, FieldSchema>>;

function filterValue(value: unknown, field: FieldSchema, context: RestContext): unknown {
  if (!field.properties || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return forContext(field.properties, value as Record<string, unknown>, context);
}

/**
 * filter_response_by_context: only the fields the schema shows in this context (nested objects filtered by their
 * own fields' contexts); fields the schema does not name (`_links`) are kept.
 */
export function forContext(schema: ItemSchema, item: Readonly<Record<string, unknown>>, context: RestContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    const field = schema[name];
    if (!field) {
      out[name] = value;
      continue;
    }
    if (field.context.includes(context)) out[name] = filterValue(value, field, context);
  }
  return out;
}

/** The paging a list asked for: the rows to skip and take (an explicit offset replaces the page's). */
export function window(params: { page: number; per_page: number; offset?: number }): { offset: number; limit: number } {
  return { offset: params.offset ?? (params.page - 1) * params.per_page, limit: params.per_page };
}

/** The same request's URL for another page: every query arg kept (arrays with brackets), `page` replaced. */
function pageLink(req: Incoming, page: number): string {
  const query = { ...(req.phpQuery ?? req.query), page: String(page) };
  return `${restUrl(req.origin, req.path)}?${qs.stringify(query, { arrayFormat: 'brackets' })}`;
}

/** What a page past the end answers: WordPress refuses it for post types; terms and users answer an empty list. */
export type PastTheEnd = 'refuse' | 'empty';

/** A page of a WordPress collection: X-WP-Total, X-WP-TotalPages and Link rel prev/next keeping the query. */
export function wpPage<T>(req: Incoming, params: { page: number; per_page: number }, items: readonly T[], total: number, past: PastTheEnd): Reply<T[]> {
  const pages = Math.ceil(total / params.per_page);
  if (past === 'refuse' && params.page > pages && total > 0) {
    throw dashboardError('rest_post_invalid_page_number', MESSAGES.rest_post_invalid_page_number);
  }
  const links: string[] = [];
  if (params.page > 1) links.push(`<${pageLink(req, Math.min(params.page - 1, Math.max(pages, 1)))}>; rel="prev"`);
  if (pages > params.page) links.push(`<${pageLink(req, params.page + 1)}>; rel="next"`);
  const headers: Record<string, string> = { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) };
  if (links.length) headers.Link = links.join(', ');
  return { status: 200, body: [...items], headers };
}

/** A link of an item's `_links`; `embeddable` marks those `_embed` fetches. */
export interface WpLink {
  href: string;
  embeddable?: boolean;
  [extra: string]: unknown;
}
export type WpLinks = Record<string, WpLink[]>;

/** An absolute URL of the REST API for a path under /api. */
export const apiUrl = (req: Pick<Incoming, 'origin'>, path: string): string => restUrl(req.origin, path);
