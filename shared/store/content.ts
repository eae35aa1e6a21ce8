// The content repository: items of the post types and terms of the taxonomies (shared/domain/content.ts). A slug
// is unique per type and owner among items that have one, and a term's per taxonomy: the unique keys decide, so
// of two creations at once with one slug the second is told 'slug_taken' (the core then picks the next, as
// WordPress's wp_unique_post_slug) and of two terms the second 'exists' with the first's id. Lists are filtered,
// ordered and paged in the query, with their total.
import type { ContentItem, PostStatus, PostType, Taxonomy, Term } from '../domain/content.js';

export type NewContentItem = Omit<ContentItem, 'id' | 'termIds'> & { termIds?: readonly number[] };
export type ContentChange = Partial<Omit<ContentItem, 'id' | 'type' | 'termIds'>> & { termIds?: readonly number[] };

export type ItemOrder = 'date' | 'id' | 'title' | 'slug' | 'modified' | 'menu_order' | 'parent' | 'author' | 'include';

export interface ItemQuery {
  types: readonly PostType[];
  /** Items of these owners (null: the platform's); undefined: any owner. */
  owners?: ReadonlyArray<number | null>;
  statuses?: readonly PostStatus[];
  /** The author's own items in these statuses are also listed (a draft of one's own). */
  alsoOwnBy?: { authorId: number; statuses: readonly PostStatus[] };
  search?: string;
  include?: readonly number[];
  exclude?: readonly number[];
  slugs?: readonly string[];
  authors?: readonly number[];
  authorsExcluded?: readonly number[];
  parents?: readonly number[];
  parentsExcluded?: readonly number[];
  /** Items linked to any of these terms (per taxonomy: all listed taxonomies must match). */
  terms?: ReadonlyArray<readonly number[]>;
  termsExcluded?: readonly number[];
  before?: string;
  after?: string;
  orderby: ItemOrder;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export type TermOrder = 'id' | 'name' | 'slug' | 'count' | 'description' | 'include' | 'term_group';

export interface TermQuery {
  taxonomy: Taxonomy;
  search?: string;
  include?: readonly number[];
  exclude?: readonly number[];
  slugs?: readonly string[];
  parent?: number;
  post?: number;
  hideEmpty?: boolean;
  orderby: TermOrder;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export type NewTerm = Omit<Term, 'id' | 'count'>;

export interface ContentRepository {
  /** Stores an item (and its terms); 'slug_taken' when its non-empty slug is its type's and owner's already. */
  createItem(item: NewContentItem): Promise<ContentItem | 'slug_taken'>;
  getItem(id: number): Promise<ContentItem | undefined>;
  /** Changes an item; undefined when there is none; 'slug_taken' as createItem. */
  updateItem(id: number, change: ContentChange): Promise<ContentItem | undefined | 'slug_taken'>;
  /** Removes an item with its revisions and term links; what it was, or undefined. */
  deleteItem(id: number): Promise<ContentItem | undefined>;
  listItems(q: ItemQuery): Promise<{ items: ContentItem[]; total: number }>;
  /** The revisions of an item, newest first (autosaves included, marked in their meta). */
  revisionsOf(parentId: number): Promise<ContentItem[]>;
  /** Items whose author was `from` are `to`'s (null: nobody's). */
  reassignAuthor(from: number, to: number | null): Promise<number>;

  /** Stores a term; 'exists' with the id of the term of that taxonomy and slug already stored. */
  createTerm(term: NewTerm): Promise<Term | { exists: number }>;
  getTerm(id: number): Promise<Term | undefined>;
  updateTerm(id: number, change: Partial<Omit<NewTerm, 'taxonomy'>>): Promise<Term | undefined | { exists: number }>;
  deleteTerm(id: number): Promise<Term | undefined>;
  listTerms(q: TermQuery): Promise<{ terms: Term[]; total: number }>;
}
