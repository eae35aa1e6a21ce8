// Collections as WordPress's posts controller answers them: args page (from 1, default 1) and per_page (1 to
// 100, default 10); a JSON array of the page's items; X-WP-Total, X-WP-TotalPages, and Link with rel="prev"
// and rel="next" (absolute URLs keeping the request's other query args); a page past the last one refused.
import { Type, type TUnsafe } from '@sinclair/typebox';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError, MESSAGES } from '../../pipeline/dashboard-errors.js';
import { restUrl } from './index-document.js';
import type { Reply } from './route.js';

export const collectionArgs = {
  page: Type.Integer({ description: 'Current page of the collection.', default: 1, minimum: 1 }),
  per_page: Type.Integer({ description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100 }),
};

/** A string arg with its allowed values listed as `enum`, the way the index and WordPress show them. */
export const oneOf = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export interface PageRequest {
  page: number;
  per_page: number;
}

/** The link to another page of the same request: same path and query, `page` replaced. */
function pageLink(req: Incoming, page: number): string {
  const query = new URLSearchParams(req.query);
  query.set('page', String(page));
  return `${restUrl(req.origin, req.path)}?${query.toString()}`;
}

/**
 * The page as a reply: the items, the totals and the links. A page past the last one (when there is any item)
 * is refused, as WordPress refuses it; an empty collection answers an empty array on page 1.
 */
export function pageReply<T>(req: Incoming, paging: PageRequest, items: readonly T[], total: number): Reply<T[]> {
  const pages = Math.ceil(total / paging.per_page);
  if (paging.page > pages && total > 0) throw dashboardError('rest_invalid_page_number', MESSAGES.rest_invalid_page_number);
  const links: string[] = [];
  if (paging.page > 1) links.push(`<${pageLink(req, Math.min(paging.page - 1, pages))}>; rel="prev"`);
  if (pages > paging.page) links.push(`<${pageLink(req, paging.page + 1)}>; rel="next"`);
  const headers: Record<string, string> = { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) };
  if (links.length) headers.Link = links.join(', ');
  return { status: 200, body: [...items], headers };
}
