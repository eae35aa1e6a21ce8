// The use cases of menu items (wp/v2 menu-items), the platform's help menu and documentation navigation: items of
// type nav_menu_item linked to one nav_menu term, read by anyone once published and written by operators (the
// posts' rules, shared/core/content/posts.ts). A link a menu shows is a web address or a path on the site: a
// scheme other than http(s) (javascript:, data:) is refused, so a menu can never run script. Menu items have no
// trash: a DELETE must be forced (WordPress's menu items controller).
import type { ContentItem, SettableStatus } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import { mayWrite, isAnonymous, type ContentActor } from './access.js';
import type { ContentRefusal, ContentResult, PostInput, PostListQuery, Posts } from './posts.js';

export const MENU_ITEM_KINDS = ['custom', 'post_type', 'taxonomy'] as const;
export type MenuItemKind = (typeof MENU_ITEM_KINDS)[number];

/** A refusal of a field's value, with WordPress's code. */
export type InvalidValue = { kind: 'invalid'; code: 'rest_invalid_param' | 'rest_url_required' | 'invalid_menu_id'; message: string };
export type MenuRefusal = ContentRefusal | InvalidValue;
export type MenuResult<T> = { ok: true; value: T } | { ok: false; refusal: MenuRefusal };

export interface MenuItemInput {
  title?: string;
  status?: SettableStatus;
  url?: string;
  attrTitle?: string;
  description?: string;
  kind?: MenuItemKind;
  object?: string;
  objectId?: number;
  parentId?: number | null;
  menuOrder?: number;
  target?: '' | '_blank';
  classes?: readonly string[];
  xfn?: readonly string[];
  menuId?: number;
}

/** A menu item's own fields, as kept in its meta. */
export interface MenuItemFields {
  url: string;
  attrTitle: string;
  description: string;
  kind: MenuItemKind;
  object: string;
  objectId: number;
  target: string;
  classes: string[];
  xfn: string[];
}

export function menuItemFields(item: ContentItem): MenuItemFields {
  const m = item.meta;
  const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    url: text(m.url),
    attrTitle: text(m.attr_title),
    description: text(m.description),
    kind: MENU_ITEM_KINDS.includes(m.kind as MenuItemKind) ? (m.kind as MenuItemKind) : 'custom',
    object: text(m.object, 'custom'),
    objectId: typeof m.object_id === 'number' ? m.object_id : 0,
    target: text(m.target),
    classes: list(m.classes),
    xfn: list(m.xfn),
  };
}

/**
 * Whether a menu link is safe to show: an absolute http(s) address, or a reference on the site (a path, a query,
 * a fragment). Whitespace and control characters are refused first, as browsers drop them inside a scheme
 * ("java\tscript:").
 */
export function safeMenuUrl(url: string): boolean {
  if (url === '') return true;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(url) || url.startsWith('//') || url.startsWith('\\')) return false;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  if (!scheme) return true;
  if (!['http', 'https'].includes(scheme[1]!.toLowerCase())) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

const invalid = <T>(code: InvalidValue['code'], message: string): MenuResult<T> => ({ ok: false, refusal: { kind: 'invalid', code, message } });

export class MenuItems {
  constructor(
    private readonly deps: { store: Store },
    private readonly posts: Posts,
  ) {}

  list(actor: ContentActor, q: PostListQuery & { menus?: readonly number[] }): Promise<ContentResult<{ items: ContentItem[]; total: number }>> {
    const { menus, ...query } = q;
    return this.posts.list(actor, 'nav_menu_item', menus?.length ? { ...query, terms: [menus] } : query);
  }

  read(actor: ContentActor, id: number, edit: boolean): Promise<ContentResult<ContentItem>> {
    return this.posts.read(actor, 'nav_menu_item', id, edit);
  }

  /** Why the values are refused, or undefined (on create a custom link needs its url). */
  private async refusalOf(input: MenuItemInput, creating: boolean, current?: ContentItem): Promise<InvalidValue | undefined> {
    if (input.url !== undefined && !safeMenuUrl(input.url)) return { kind: 'invalid', code: 'rest_invalid_param', message: 'Invalid parameter(s): url' };
    const kind = input.kind ?? (current ? menuItemFields(current).kind : 'custom');
    const url = input.url ?? (current ? menuItemFields(current).url : '');
    if (creating && kind === 'custom' && url === '')
      return { kind: 'invalid', code: 'rest_url_required', message: 'The url is required when using a custom menu item type.' };
    if (input.menuId !== undefined) {
      const menu = await this.deps.store.content.getTerm(input.menuId);
      if (!menu || menu.taxonomy !== 'nav_menu') return { kind: 'invalid', code: 'invalid_menu_id', message: 'Invalid menu ID.' };
    }
    return undefined;
  }

  private postInputOf(input: MenuItemInput, current?: ContentItem): PostInput {
    const meta: Record<string, unknown> = {};
    const put = (key: string, value: unknown) => {
      if (value !== undefined) meta[key] = value;
    };
    put('url', input.url);
    put('attr_title', input.attrTitle);
    put('description', input.description);
    put('kind', input.kind ?? (current ? undefined : 'custom'));
    put('object', input.object ?? (current ? undefined : (input.kind ?? 'custom') === 'custom' ? 'custom' : ''));
    put('object_id', input.objectId);
    put('target', input.target);
    put('classes', input.classes);
    put('xfn', input.xfn);
    return {
      title: input.title,
      status: input.status ?? (current ? undefined : 'publish'),
      parentId: input.parentId,
      menuOrder: input.menuOrder,
      termIds: input.menuId === undefined ? undefined : [input.menuId],
      meta,
    };
  }

  async create(actor: ContentActor, input: MenuItemInput): Promise<MenuResult<ContentItem>> {
    if (!mayWrite(actor, null)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_cannot_create', anonymous: isAnonymous(actor) } };
    const refusal = await this.refusalOf(input, true);
    if (refusal) return { ok: false, refusal };
    return this.posts.create(actor, 'nav_menu_item', this.postInputOf(input));
  }

  async update(actor: ContentActor, id: number, input: MenuItemInput): Promise<MenuResult<ContentItem>> {
    const current = await this.deps.store.content.getItem(id);
    if (!current || current.type !== 'nav_menu_item') return { ok: false, refusal: { kind: 'not_found' } };
    if (!mayWrite(actor, current.teamId)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_cannot_edit', anonymous: isAnonymous(actor) } };
    const refusal = await this.refusalOf(input, false, current);
    if (refusal) return { ok: false, refusal };
    return this.posts.update(actor, 'nav_menu_item', id, this.postInputOf(input, current));
  }

  /** Deletes the item; menu items have no trash, so only with `force`. */
  async remove(actor: ContentActor, id: number, force: boolean): Promise<MenuResult<ContentItem>> {
    const current = await this.deps.store.content.getItem(id);
    if (!current || current.type !== 'nav_menu_item') return { ok: false, refusal: { kind: 'not_found' } };
    if (!mayWrite(actor, current.teamId)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_cannot_delete', anonymous: isAnonymous(actor) } };
    if (!force) return { ok: false, refusal: { kind: 'trash_not_supported', what: 'type' } };
    const gone = await this.posts.remove(actor, 'nav_menu_item', id, true);
    return gone.ok ? { ok: true, value: gone.value.item } : gone;
  }
}

export { invalid as invalidValue };
