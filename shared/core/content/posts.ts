// The use cases of items of a post type, as WordPress's posts, revisions and autosaves controllers run them:
// lists and reads limited to what the actor may read; writes by those who may write the owner's items; a slug
// made unique; a revision kept of each save that changes the title, content or excerpt; DELETE trashes (and a
// second one is refused) unless forced; an author's autosave of their own draft saves the draft itself, anyone
// else's is kept as the one autosave revision of that author. Outcomes are values; the interfaces word them.
import type { ContentItem, PostStatus, PostType, SettableStatus } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import type { ContentChange, ItemOrder, NewContentItem } from '../../store/content.js';
import { nowIso } from '../../time.js';
import { isAnonymous, mayRead, mayWrite, ownerOf, readableOwners, userIdOf, type ContentActor } from './access.js';
import { slugOf, withFreeSlug } from './slugs.js';

export type ContentRefusal =
  | { kind: 'not_found' }
  | {
      kind: 'forbidden';
      code:
        | 'rest_forbidden'
        | 'rest_forbidden_context'
        | 'rest_forbidden_status'
        | 'rest_cannot_create'
        | 'rest_cannot_edit'
        | 'rest_cannot_delete'
        | 'rest_cannot_read'
        | 'rest_cannot_manage_templates'
        | 'rest_cannot_export_templates';
      anonymous: boolean;
    }
  | { kind: 'exists' }
  | { kind: 'already_trashed' }
  | { kind: 'trash_not_supported'; what: 'revisions' | 'terms' | 'type' | 'templates' }
  | { kind: 'invalid_parent' }
  | { kind: 'revision_mismatch' }
  | { kind: 'no_autosave' }
  | { kind: 'slug_exhausted' };

export type ContentResult<T> = { ok: true; value: T } | { ok: false; refusal: ContentRefusal };

export const ok = <T>(value: T): ContentResult<T> => ({ ok: true, value });
export const refused = <T>(refusal: ContentRefusal): ContentResult<T> => ({ ok: false, refusal });
export const forbidden = <T>(actor: ContentActor, code: Extract<ContentRefusal, { kind: 'forbidden' }>['code']): ContentResult<T> =>
  refused({ kind: 'forbidden', code, anonymous: isAnonymous(actor) });

export interface PostListQuery {
  edit: boolean;
  statuses: readonly PostStatus[];
  search?: string;
  include?: readonly number[];
  exclude?: readonly number[];
  slugs?: readonly string[];
  authors?: readonly number[];
  authorsExcluded?: readonly number[];
  parents?: readonly number[];
  parentsExcluded?: readonly number[];
  terms?: ReadonlyArray<readonly number[]>;
  termsExcluded?: readonly number[];
  before?: string;
  after?: string;
  orderby: ItemOrder;
  order: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** What a client may write of an item; absent fields are left as they are (on create: the defaults). */
export interface PostInput {
  title?: string;
  content?: string;
  excerpt?: string;
  slug?: string;
  status?: SettableStatus;
  date?: string;
  parentId?: number | null;
  menuOrder?: number;
  commentStatus?: 'open' | 'closed';
  authorId?: number;
  termIds?: readonly number[];
  meta?: Readonly<Record<string, unknown>>;
}

/** The platform's own types: announcements, documentation, its menus and fonts, written by operators only. */
const PLATFORM_TYPES: readonly PostType[] = ['post', 'page', 'nav_menu_item', 'wp_font_family', 'wp_font_face', 'wp_global_styles'];

/** The owner an actor's new items of the type get (null: the platform's). */
const ownerFor = (actor: ContentActor, type: PostType): number | null => (PLATFORM_TYPES.includes(type) ? null : ownerOf(actor));

/**
 * Whether anonymous callers may read published items of the type: only the platform's site content. The other
 * types (reusable blocks, navigation, templates) are editing material, which WordPress lets only signed-in
 * editors read (wp_block's `read` is `edit_posts`; docs/decisions.md).
 */
const publicType = (type: PostType): boolean => PLATFORM_TYPES.includes(type);

/** The owners whose published items of the type the actor may read. */
const readableOwnersOf = (actor: ContentActor, type: PostType): Array<number | null> | undefined =>
  isAnonymous(actor) && !publicType(type) ? [] : readableOwners(actor);

/** The owners whose unpublished items the actor may list: those it may write. */
function writableOwners(actor: ContentActor, type: PostType): Array<number | null> | undefined {
  if (actor.kind === 'operator') return undefined;
  return actor.kind === 'member' && mayWrite(actor, ownerFor(actor, type)) ? [actor.teamId] : [];
}

const PUBLISHED_STATUSES: readonly PostStatus[] = ['publish', 'private', 'future'];

/** The status an item's slug is made for (a draft keeps none until it is given one, as WordPress). */
const slugWanted = (input: PostInput, status: PostStatus, current?: ContentItem): string => {
  if (input.slug !== undefined) return slugOf(input.slug);
  if (current && current.slug !== '') return current.slug;
  const title = input.title ?? current?.title ?? '';
  return PUBLISHED_STATUSES.includes(status) ? slugOf(title) : '';
};

/** A revision's copy of the item's title, content and excerpt (WordPress's wp_save_post_revision). */
const revisionOf = (item: ContentItem, authorId: number | null, autosave: boolean, at: string): NewContentItem => ({
  type: 'revision',
  status: 'inherit',
  teamId: item.teamId,
  authorId,
  parentId: item.id,
  slug: `${item.id}-${autosave ? 'autosave' : 'revision'}-v1`,
  title: item.title,
  content: item.content,
  excerpt: item.excerpt,
  menuOrder: 0,
  commentStatus: 'closed',
  meta: autosave ? { autosave: true } : {},
  trashedFrom: null,
  date: at,
  modified: at,
});

const changedText = (a: Pick<ContentItem, 'title' | 'content' | 'excerpt'>, b: Pick<ContentItem, 'title' | 'content' | 'excerpt'>): boolean =>
  a.title !== b.title || a.content !== b.content || a.excerpt !== b.excerpt;

export class Posts {
  constructor(private readonly deps: { store: Store }) {}

  private get content() {
    return this.deps.store.content;
  }

  /** An item of the type the actor may read, or why not. */
  async read(actor: ContentActor, type: PostType, id: number, edit: boolean): Promise<ContentResult<ContentItem>> {
    // Anonymous callers read none of the editing types: told so before the lookup, which would tell what exists.
    if (isAnonymous(actor) && !publicType(type)) return forbidden(actor, 'rest_forbidden');
    const item = await this.content.getItem(id);
    if (!item || item.type !== type) return refused({ kind: 'not_found' });
    if (edit && !mayWrite(actor, item.teamId)) return forbidden(actor, 'rest_forbidden_context');
    if (!mayRead(actor, item)) return forbidden(actor, 'rest_forbidden');
    return ok(item);
  }

  async list(actor: ContentActor, type: PostType, q: PostListQuery): Promise<ContentResult<{ items: ContentItem[]; total: number }>> {
    const writer = mayWrite(actor, ownerFor(actor, type));
    const unpublished = q.statuses.some((s) => s !== 'publish');
    if (q.edit && !writer) return forbidden(actor, 'rest_forbidden_context');
    if (unpublished && !writer) return forbidden(actor, 'rest_forbidden_status');
    const owners = unpublished || q.edit ? writableOwners(actor, type) : readableOwnersOf(actor, type);
    const { edit, ...query } = q;
    void edit; // the context is the interface's; the store is asked for the items only
    return ok(await this.content.listItems({ ...query, types: [type], owners }));
  }

  async create(actor: ContentActor, type: PostType, input: PostInput): Promise<ContentResult<ContentItem>> {
    const owner = ownerFor(actor, type);
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_create');
    if (input.parentId) {
      const parent = await this.content.getItem(input.parentId);
      if (!parent || parent.type !== type || parent.teamId !== owner) return refused({ kind: 'invalid_parent' });
    }
    const at = nowIso();
    const status = input.status ?? 'draft';
    const base: Omit<NewContentItem, 'slug'> = {
      type,
      status: status === 'publish' && input.date && input.date > at ? 'future' : status,
      teamId: owner,
      authorId: input.authorId ?? userIdOf(actor),
      parentId: input.parentId ?? null,
      title: input.title ?? '',
      content: input.content ?? '',
      excerpt: input.excerpt ?? '',
      menuOrder: input.menuOrder ?? 0,
      commentStatus: input.commentStatus ?? 'closed',
      meta: input.meta ?? {},
      trashedFrom: null,
      date: input.date ?? at,
      modified: at,
      termIds: input.termIds ?? [],
    };
    const created = await withFreeSlug(slugWanted(input, base.status), (slug) => this.content.createItem({ ...base, slug }));
    if (created === 'slug_taken') return refused({ kind: 'slug_exhausted' });
    if (changedText(created, { title: '', content: '', excerpt: '' })) await this.content.createItem(revisionOf(created, created.authorId, false, at));
    return ok(created);
  }

  async update(actor: ContentActor, type: PostType, id: number, input: PostInput): Promise<ContentResult<ContentItem>> {
    const current = await this.content.getItem(id);
    if (!current || current.type !== type) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, current.teamId)) return forbidden(actor, 'rest_cannot_edit');
    if (input.parentId) {
      const parent = await this.content.getItem(input.parentId);
      if (!parent || parent.type !== type || parent.teamId !== current.teamId || parent.id === id) return refused({ kind: 'invalid_parent' });
    }
    const at = nowIso();
    const status = input.status ?? current.status;
    const change: ContentChange = {
      status,
      title: input.title,
      content: input.content,
      excerpt: input.excerpt,
      parentId: input.parentId,
      menuOrder: input.menuOrder,
      commentStatus: input.commentStatus,
      authorId: input.authorId,
      date: input.date,
      meta: input.meta ? { ...current.meta, ...input.meta } : undefined,
      termIds: input.termIds,
      modified: at,
    };
    const updated = await withFreeSlug(slugWanted(input, status, current), (slug) => this.content.updateItem(id, { ...change, slug }));
    if (updated === undefined) return refused({ kind: 'not_found' });
    if (updated === 'slug_taken') return refused({ kind: 'slug_exhausted' });
    if (changedText(current, updated)) await this.content.createItem(revisionOf(updated, userIdOf(actor), false, at));
    return ok(updated);
  }

  /** Trashes the item (its status kept to restore), or with `force` deletes it with its revisions. */
  async remove(actor: ContentActor, type: PostType, id: number, force: boolean): Promise<ContentResult<{ deleted: boolean; item: ContentItem }>> {
    const current = await this.content.getItem(id);
    if (!current || current.type !== type) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, current.teamId)) return forbidden(actor, 'rest_cannot_delete');
    if (force) {
      const gone = await this.content.deleteItem(id);
      return gone ? ok({ deleted: true, item: gone }) : refused({ kind: 'not_found' });
    }
    if (current.status === 'trash') return refused({ kind: 'already_trashed' });
    const trashed = await this.content.updateItem(id, { status: 'trash', trashedFrom: current.status, modified: nowIso() });
    if (!trashed || trashed === 'slug_taken') return refused({ kind: 'not_found' });
    return ok({ deleted: false, item: trashed });
  }

  /**
   * The navigation the site editor falls back to (WordPress's navigation fallback): the owner's most recently
   * published wp_navigation, or, when it has none, a new published one listing the pages. Two first calls at once
   * may each create one, as in WordPress; the next calls answer the newest.
   */
  async fallbackNavigation(actor: ContentActor): Promise<ContentResult<ContentItem>> {
    const owner = ownerFor(actor, 'wp_navigation');
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_create');
    const found = await this.content.listItems({ types: ['wp_navigation'], owners: [owner], statuses: ['publish'], orderby: 'date', order: 'desc', offset: 0, limit: 1 });
    if (found.items[0]) return ok(found.items[0]);
    return this.create(actor, 'wp_navigation', { title: 'Navigation', content: '<!-- wp:page-list /-->', status: 'publish' });
  }

  /** The parent, when the actor may see its revisions (those who may write it). */
  private async parentForRevisions(actor: ContentActor, type: PostType, parentId: number): Promise<ContentResult<ContentItem>> {
    const parent = await this.content.getItem(parentId);
    if (!parent || parent.type !== type) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, parent.teamId)) return forbidden(actor, 'rest_cannot_read');
    return ok(parent);
  }

  async revisions(actor: ContentActor, type: PostType, parentId: number): Promise<ContentResult<ContentItem[]>> {
    const parent = await this.parentForRevisions(actor, type, parentId);
    if (!parent.ok) return parent;
    return ok((await this.content.revisionsOf(parentId)).filter((r) => r.meta.autosave !== true));
  }

  async revision(actor: ContentActor, type: PostType, parentId: number, id: number): Promise<ContentResult<ContentItem>> {
    const parent = await this.parentForRevisions(actor, type, parentId);
    if (!parent.ok) return parent;
    const revision = await this.content.getItem(id);
    if (!revision || revision.type !== 'revision') return refused({ kind: 'not_found' });
    if (revision.parentId !== parentId) return refused({ kind: 'revision_mismatch' });
    return ok(revision);
  }

  async removeRevision(actor: ContentActor, type: PostType, parentId: number, id: number, force: boolean): Promise<ContentResult<ContentItem>> {
    const found = await this.revision(actor, type, parentId, id);
    if (!found.ok) return found;
    if (!force) return refused({ kind: 'trash_not_supported', what: 'revisions' });
    const gone = await this.content.deleteItem(id);
    return gone ? ok(gone) : refused({ kind: 'not_found' });
  }

  async autosaves(actor: ContentActor, type: PostType, parentId: number): Promise<ContentResult<ContentItem[]>> {
    const parent = await this.parentForRevisions(actor, type, parentId);
    if (!parent.ok) return parent;
    return ok((await this.content.revisionsOf(parentId)).filter((r) => r.meta.autosave === true));
  }

  async autosave(actor: ContentActor, type: PostType, parentId: number, id: number): Promise<ContentResult<ContentItem>> {
    const saves = await this.autosaves(actor, type, parentId);
    if (!saves.ok) return saves;
    const found = saves.value.find((r) => r.id === id);
    return found ? ok(found) : refused({ kind: 'no_autosave' });
  }

  /**
   * An autosave: the author's own draft is saved itself; otherwise the actor's one autosave revision of the item
   * is written (created, or replaced).
   */
  async saveAutosave(actor: ContentActor, type: PostType, parentId: number, input: PostInput): Promise<ContentResult<ContentItem>> {
    const parent = await this.content.getItem(parentId);
    if (!parent || parent.type !== type) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, parent.teamId)) return forbidden(actor, 'rest_cannot_edit');
    const draft = parent.status === 'draft' || parent.status === 'auto-draft';
    if (draft && parent.authorId !== null && parent.authorId === userIdOf(actor)) {
      const { title, content, excerpt } = input;
      return this.update(actor, type, parentId, { title, content, excerpt });
    }
    const at = nowIso();
    const copy = revisionOf(
      { ...parent, title: input.title ?? parent.title, content: input.content ?? parent.content, excerpt: input.excerpt ?? parent.excerpt },
      userIdOf(actor),
      true,
      at,
    );
    const mine = (await this.content.revisionsOf(parentId)).find((r) => r.meta.autosave === true && r.authorId === userIdOf(actor));
    if (mine) {
      const updated = await this.content.updateItem(mine.id, { title: copy.title, content: copy.content, excerpt: copy.excerpt, modified: at, date: at });
      return updated && updated !== 'slug_taken' ? ok(updated) : refused({ kind: 'not_found' });
    }
    const created = await this.content.createItem(copy);
    return created === 'slug_taken' ? refused({ kind: 'slug_exhausted' }) : ok(created);
  }
}
