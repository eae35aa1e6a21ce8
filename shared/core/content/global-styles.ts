// The use cases of global styles (wp/v2 global-styles), read-only as the specification lists them: the platform's
// one user global styles item of the theme 'tern' (created on its first read: the store's unique slug decides, so
// two first reads at once find the same item), the theme's own theme.json and its (no) variations, and the item's
// revisions. Anyone reads the styles (the public pages are drawn with them); the edit context and the revisions
// are the operators' (WordPress: edit_theme_options).
import type { ContentItem } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import { nowIso } from '../../time.js';
import { isAnonymous, mayWrite, type ContentActor } from './access.js';
import type { ContentResult } from './posts.js';

export const THEME = 'tern';
const SLUG = `wp-global-styles-${THEME}`;

/** The theme's own theme.json (settings and styles): the dashboard's palette and type. */
export const THEME_JSON: Readonly<{ settings: Record<string, unknown>; styles: Record<string, unknown> }> = {
  settings: {
    color: {
      palette: [
        { slug: 'base', color: '#ffffff', name: 'Base' },
        { slug: 'contrast', color: '#1d2327', name: 'Contrast' },
        { slug: 'primary', color: '#2271b1', name: 'Primary' },
      ],
    },
    typography: { fontFamilies: [{ slug: 'system', name: 'System', fontFamily: '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif' }] },
    layout: { contentSize: '720px', wideSize: '1100px' },
  },
  styles: {
    color: { background: 'var(--wp--preset--color--base)', text: 'var(--wp--preset--color--contrast)' },
    typography: { fontFamily: 'var(--wp--preset--font-family--system)' },
  },
};

export interface GlobalStylesItem {
  item: ContentItem;
  settings: Record<string, unknown>;
  styles: Record<string, unknown>;
}

/** An item's (or revision's) user theme.json split into settings and styles. */
export function stylesOf(item: ContentItem): GlobalStylesItem {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(item.content);
    if (typeof value === 'object' && value !== null) parsed = value as Record<string, unknown>;
  } catch {
    // an unreadable copy reads as empty styles
  }
  const part = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  return { item, settings: part(parsed.settings), styles: part(parsed.styles) };
}

const notFound = <T>(): ContentResult<T> => ({ ok: false, refusal: { kind: 'not_found' } });

export class GlobalStyles {
  constructor(private readonly deps: { store: Store }) {}

  private get content() {
    return this.deps.store.content;
  }

  private async find(): Promise<ContentItem | undefined> {
    const { items } = await this.content.listItems({ types: ['wp_global_styles'], owners: [null], slugs: [SLUG], orderby: 'id', order: 'asc', offset: 0, limit: 1 });
    return items[0];
  }

  /** The platform's user global styles of the theme, created empty on first read. */
  async platform(): Promise<ContentItem> {
    const found = await this.find();
    if (found) return found;
    const at = nowIso();
    const created = await this.content.createItem({
      type: 'wp_global_styles',
      status: 'publish',
      teamId: null,
      authorId: null,
      parentId: null,
      slug: SLUG,
      title: 'Custom Styles',
      content: JSON.stringify({ version: 3, isGlobalStylesUserThemeJSON: true }),
      excerpt: '',
      menuOrder: 0,
      commentStatus: 'closed',
      meta: {},
      trashedFrom: null,
      date: at,
      modified: at,
    });
    if (created !== 'slug_taken') return created;
    return (await this.find())!;
  }

  async read(actor: ContentActor, id: number, edit: boolean): Promise<ContentResult<GlobalStylesItem>> {
    const item = await this.content.getItem(id);
    if (!item || item.type !== 'wp_global_styles') return notFound();
    if (edit && !mayWrite(actor, item.teamId)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_forbidden_context', anonymous: isAnonymous(actor) } };
    return { ok: true, value: stylesOf(item) };
  }

  /** The theme's theme.json, for the one theme there is. */
  theme(stylesheet: string): ContentResult<typeof THEME_JSON> {
    return stylesheet === THEME ? { ok: true, value: THEME_JSON } : notFound();
  }

  /** The theme's style variations: Tern ships none. */
  variations(stylesheet: string): ContentResult<Array<{ title: string; settings: Record<string, unknown>; styles: Record<string, unknown> }>> {
    return stylesheet === THEME ? { ok: true, value: [] } : notFound();
  }

  async revisions(actor: ContentActor, parentId: number): Promise<ContentResult<GlobalStylesItem[]>> {
    const parent = await this.content.getItem(parentId);
    if (!parent || parent.type !== 'wp_global_styles') return notFound();
    if (!mayWrite(actor, parent.teamId)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_cannot_read', anonymous: isAnonymous(actor) } };
    return { ok: true, value: (await this.content.revisionsOf(parentId)).filter((r) => r.meta.autosave !== true).map(stylesOf) };
  }

  async revision(actor: ContentActor, parentId: number, id: number): Promise<ContentResult<GlobalStylesItem>> {
    const all = await this.revisions(actor, parentId);
    if (!all.ok) return all;
    const revision = await this.content.getItem(id);
    if (!revision || revision.type !== 'revision') return notFound();
    if (revision.parentId !== parentId) return { ok: false, refusal: { kind: 'revision_mismatch' } };
    return { ok: true, value: stylesOf(revision) };
  }
}
