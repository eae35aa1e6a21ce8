// The use cases of block templates and template parts, as WordPress's templates controller runs them. A template
// is named `theme//slug` (Tern has one theme, `tern`) and lives in one owner's space: an operator's are the
// platform's (the ones Tern's own mail may use: the email block renderer reads its template parts by slug), a
// member's its team's. Any signed-in caller reads its space's published templates; those who may write the space
// read the rest, use the edit context and write. Templates have no trash: a DELETE must be forced.
import type { ContentItem, PostStatus, SettableStatus } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import type { ContentChange, NewContentItem } from '../../store/content.js';
import { nowIso } from '../../time.js';
import { isAnonymous, mayWrite, ownerOf, userIdOf, type ContentActor } from './access.js';
import { forbidden, ok, refused, type ContentResult } from './posts.js';
import { withFreeSlug } from './slugs.js';

export type TemplateType = 'wp_template' | 'wp_template_part';

/** Tern's one theme: every template's id starts with it. */
export const THEME = 'tern';

export const TEMPLATE_AREAS = ['header', 'footer', 'uncategorized'] as const;
export type TemplateArea = (typeof TEMPLATE_AREAS)[number];

/** What a client may write of a template; absent fields are left as they are (on create: the defaults). */
export interface TemplateInput {
  slug?: string;
  title?: string;
  content?: string;
  description?: string;
  status?: SettableStatus;
  area?: TemplateArea;
  authorId?: number;
}

export interface TemplateListQuery {
  edit: boolean;
  area?: TemplateArea;
}

/** The id of a stored template: its theme and slug. */
export const templateId = (item: Pick<ContentItem, 'slug'>): string => `${THEME}//${item.slug}`;

/** The slug an id names, when it names one of Tern's theme. */
function slugOfId(id: string): string | undefined {
  const [theme, slug, ...rest] = id.split('//');
  return theme === THEME && slug && rest.length === 0 ? slug : undefined;
}

export class Templates {
  constructor(private readonly deps: { store: Store }) {}

  private get content() {
    return this.deps.store.content;
  }

  /** The actor's space, or why it has none: anonymous callers manage no templates. */
  private space<T>(actor: ContentActor): ContentResult<T> | number | null {
    if (isAnonymous(actor)) return forbidden(actor, 'rest_cannot_manage_templates');
    return ownerOf(actor);
  }

  private async find(type: TemplateType, owner: number | null, id: string): Promise<ContentItem | undefined> {
    const slug = slugOfId(id);
    if (slug === undefined) return undefined;
    const { items } = await this.content.listItems({ types: [type], owners: [owner], slugs: [slug], orderby: 'id', order: 'asc', offset: 0, limit: 1 });
    return items[0];
  }

  async list(actor: ContentActor, type: TemplateType, q: TemplateListQuery): Promise<ContentResult<ContentItem[]>> {
    const owner = this.space<ContentItem[]>(actor);
    if (typeof owner === 'object' && owner !== null) return owner;
    const writer = mayWrite(actor, owner);
    if (q.edit && !writer) return forbidden(actor, 'rest_forbidden_context');
    const statuses: PostStatus[] | undefined = writer ? undefined : ['publish'];
    const { items } = await this.content.listItems({ types: [type], owners: [owner], statuses, orderby: 'slug', order: 'asc', offset: 0, limit: 1000 });
    return ok(q.area ? items.filter((i) => i.meta.area === q.area) : items);
  }

  async read(actor: ContentActor, type: TemplateType, id: string, edit: boolean): Promise<ContentResult<ContentItem>> {
    const owner = this.space<ContentItem>(actor);
    if (typeof owner === 'object' && owner !== null) return owner;
    const item = await this.find(type, owner, id);
    const writer = mayWrite(actor, owner);
    if (!item || (!writer && item.status !== 'publish')) return refused({ kind: 'not_found' });
    if (edit && !writer) return forbidden(actor, 'rest_forbidden_context');
    return ok(item);
  }

  async create(actor: ContentActor, type: TemplateType, input: TemplateInput & { slug: string }): Promise<ContentResult<ContentItem>> {
    const owner = this.space<ContentItem>(actor);
    if (typeof owner === 'object' && owner !== null) return owner;
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_create');
    const at = nowIso();
    const base: Omit<NewContentItem, 'slug'> = {
      type,
      status: input.status ?? 'publish',
      teamId: owner,
      authorId: input.authorId ?? userIdOf(actor),
      parentId: null,
      title: input.title ?? input.slug,
      content: input.content ?? '',
      excerpt: input.description ?? '',
      menuOrder: 0,
      commentStatus: 'closed',
      meta: type === 'wp_template_part' ? { area: input.area ?? 'uncategorized' } : {},
      trashedFrom: null,
      date: at,
      modified: at,
    };
    const created = await withFreeSlug(input.slug, (slug) => this.content.createItem({ ...base, slug }));
    return created === 'slug_taken' ? refused({ kind: 'slug_exhausted' }) : ok(created);
  }

  async update(actor: ContentActor, type: TemplateType, id: string, input: TemplateInput): Promise<ContentResult<ContentItem>> {
    const owner = this.space<ContentItem>(actor);
    if (typeof owner === 'object' && owner !== null) return owner;
    const current = await this.find(type, owner, id);
    if (!current) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_edit');
    const change: ContentChange = {
      title: input.title,
      content: input.content,
      excerpt: input.description,
      status: input.status,
      authorId: input.authorId,
      meta: input.area && type === 'wp_template_part' ? { ...current.meta, area: input.area } : undefined,
      modified: nowIso(),
    };
    const wanted = input.slug ?? current.slug;
    const updated = await withFreeSlug(wanted === current.slug ? '' : wanted, (slug) => this.content.updateItem(current.id, { ...change, slug: slug || current.slug }));
    if (updated === undefined) return refused({ kind: 'not_found' });
    return updated === 'slug_taken' ? refused({ kind: 'slug_exhausted' }) : ok(updated);
  }

  /** Deletes a template; unforced, refused (templates have no trash). */
  async remove(actor: ContentActor, type: TemplateType, id: string, force: boolean): Promise<ContentResult<ContentItem>> {
    const owner = this.space<ContentItem>(actor);
    if (typeof owner === 'object' && owner !== null) return owner;
    const current = await this.find(type, owner, id);
    if (!current) return refused({ kind: 'not_found' });
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_delete');
    if (!force) return refused({ kind: 'trash_not_supported', what: 'templates' });
    const gone = await this.content.deleteItem(current.id);
    return gone ? ok(gone) : refused({ kind: 'not_found' });
  }

  /** WordPress's author_text: the name of the template's author ('' when it has none). */
  async authorText(item: Pick<ContentItem, 'authorId'>): Promise<string> {
    if (item.authorId === null) return '';
    return (await this.deps.store.users.get(item.authorId))?.name ?? '';
  }

  /** The templates and template parts of the actor's space, for the site editor's export; writers only. */
  async exportable(actor: ContentActor): Promise<ContentResult<{ templates: ContentItem[]; parts: ContentItem[] }>> {
    const owner = this.space<never>(actor);
    if (typeof owner === 'object' && owner !== null) return forbidden(actor, 'rest_cannot_export_templates');
    if (!mayWrite(actor, owner)) return forbidden(actor, 'rest_cannot_export_templates');
    const all = async (type: TemplateType) =>
      (await this.content.listItems({ types: [type], owners: [owner], orderby: 'slug', order: 'asc', offset: 0, limit: 1000 })).items;
    return ok({ templates: await all('wp_template'), parts: await all('wp_template_part') });
  }
}
