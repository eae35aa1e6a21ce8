// The content items' and terms' rows as both engines store them, decoded; the meta column is JSON text.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { POST_STATUSES, POST_TYPES, TAXONOMIES, type ContentItem, type Term } from '../domain/content.js';

export const ITEM_COLUMNS =
  'id, type, status, team_id, author_id, parent_id, slug, title, content, excerpt, menu_order, comment_status, meta, trashed_from, date, modified';
export const TERM_COLUMNS = 'id, taxonomy, name, slug, description, parent_id';

const ItemRow = Type.Object({
  id: Int,
  type: OneOf(POST_TYPES),
  status: OneOf(POST_STATUSES),
  team_id: Nullable(Int),
  author_id: Nullable(Int),
  parent_id: Nullable(Int),
  slug: Text,
  title: Text,
  content: Text,
  excerpt: Text,
  menu_order: Int,
  comment_status: OneOf(['open', 'closed'] as const),
  meta: Text,
  trashed_from: Nullable(OneOf(POST_STATUSES)),
  date: Text,
  modified: Text,
});

const parseMeta = (text: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/** An item's row without its terms (the repository adds them from the link table). */
export const decodeItem = rowDecoder('content item', ItemRow, (r): ContentItem => ({
  id: r.id,
  type: r.type,
  status: r.status,
  teamId: r.team_id,
  authorId: r.author_id,
  parentId: r.parent_id,
  slug: r.slug,
  title: r.title,
  content: r.content,
  excerpt: r.excerpt,
  menuOrder: r.menu_order,
  commentStatus: r.comment_status,
  meta: parseMeta(r.meta),
  trashedFrom: r.trashed_from,
  date: r.date,
  modified: r.modified,
  termIds: [],
}));

const TermRow = Type.Object({ id: Int, taxonomy: OneOf(TAXONOMIES), name: Text, slug: Text, description: Text, parent_id: Nullable(Int), count: Int });

export const decodeTerm = rowDecoder('term', TermRow, (r): Term => ({
  id: r.id,
  taxonomy: r.taxonomy,
  name: r.name,
  slug: r.slug,
  description: r.description,
  parentId: r.parent_id,
  count: r.count,
}));

/** The item columns a change may write, by domain field. */
export const CHANGEABLE: ReadonlyArray<[Exclude<keyof ContentItem, 'id' | 'type' | 'termIds'>, string]> = [
  ['status', 'status'],
  ['teamId', 'team_id'],
  ['authorId', 'author_id'],
  ['parentId', 'parent_id'],
  ['slug', 'slug'],
  ['title', 'title'],
  ['content', 'content'],
  ['excerpt', 'excerpt'],
  ['menuOrder', 'menu_order'],
  ['commentStatus', 'comment_status'],
  ['meta', 'meta'],
  ['trashedFrom', 'trashed_from'],
  ['date', 'date'],
  ['modified', 'modified'],
];

/** A domain value as its column holds it (meta as JSON text). */
export const columnValue = (field: keyof ContentItem, value: unknown): string | number | null =>
  field === 'meta' ? JSON.stringify(value ?? {}) : (value as string | number | null);
