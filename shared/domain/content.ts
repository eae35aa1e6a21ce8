// The content a platform publishes through the dashboard's content namespace (wp/v2), kept as WordPress keeps
// it: items of a post type (announcements are posts, documentation pages are pages, reusable blocks, templates,
// navigation...) and terms of a taxonomy (categories, tags) linked to them. An item belongs to the platform
// (team null: operators edit it) or to one team (its owners and admins edit it). Revisions are items of type
// 'revision' whose parent is the item they keep a copy of.

export const POST_TYPES = [
  'post',
  'page',
  'wp_block',
  'wp_template',
  'wp_template_part',
  'wp_navigation',
  'nav_menu_item',
  'wp_font_family',
  'wp_font_face',
  'wp_global_styles',
  'revision',
] as const;
export type PostType = (typeof POST_TYPES)[number];

/** WordPress's post statuses; 'inherit' is a revision's, 'trash' a trashed item's. */
export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash', 'inherit', 'auto-draft'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** The statuses a client may set (the others are the system's). */
export const SETTABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

export const TAXONOMIES = ['category', 'post_tag', 'nav_menu', 'wp_pattern_category'] as const;
export type Taxonomy = (typeof TAXONOMIES)[number];

export interface ContentItem {
  id: number;
  type: PostType;
  status: PostStatus;
  /** null: the platform's own (announcements, docs); else the team that owns it. */
  teamId: number | null;
  authorId: number | null;
  /** The parent page, or for a revision the item it copies. */
  parentId: number | null;
  slug: string;
  title: string;
  content: string;
  excerpt: string;
  menuOrder: number;
  commentStatus: 'open' | 'closed';
  /** Fields of the type's own (a template's area, a menu item's url...), as JSON. */
  meta: Readonly<Record<string, unknown>>;
  /** The status before it was trashed (restored from it). */
  trashedFrom: PostStatus | null;
  /** When it is (or is to be) published: ISO 8601 UTC. */
  date: string;
  modified: string;
  termIds: readonly number[];
}

export interface Term {
  id: number;
  taxonomy: Taxonomy;
  name: string;
  slug: string;
  description: string;
  parentId: number | null;
  /** Published items linked to it. */
  count: number;
}
