// The use cases of the font library (wp/v2 font-families and their font-faces), as WordPress's font families and
// font faces controllers run them. The fonts are the platform's look, so, as WordPress asks edit_theme_options for
// every one of these routes, only platform operators list, read and write them (docs/decisions.md). A family's
// settings (name, slug, fontFamily, preview) are kept as its JSON content with the slug unique (the store's index
// decides: 'rest_duplicate_font_family'); a face's settings (fontFamily, src, ...) likewise, as a child of its
// family. Faces name their files by http(s) address only: there are no font uploads. Fonts have no trash.
import type { ContentItem } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import { nowIso } from '../../time.js';
import { isAnonymous, mayWrite, userIdOf, type ContentActor } from './access.js';
import type { ContentRefusal } from './posts.js';

export type FontRefusal =
  | ContentRefusal
  | {
      kind: 'invalid';
      code: 'rest_invalid_param' | 'rest_duplicate_font_family' | 'rest_font_face_parent_id_mismatch';
      message: string;
      params?: Record<string, string>;
    };
export type FontResult<T> = { ok: true; value: T } | { ok: false; refusal: FontRefusal };

export interface FontFamily {
  item: ContentItem;
  settings: Record<string, unknown>;
  themeJsonVersion: number;
  faceIds: number[];
}

export interface FontFace {
  item: ContentItem;
  settings: Record<string, unknown>;
  themeJsonVersion: number;
}

export interface FontPage {
  offset: number;
  limit: number;
  order: 'asc' | 'desc';
  orderby: 'id' | 'include';
  include?: readonly number[];
  exclude?: readonly number[];
  search?: string;
  slugs?: readonly string[];
}

type Op = 'rest_cannot_read' | 'rest_cannot_create' | 'rest_cannot_edit' | 'rest_cannot_delete';
const refuse = <T>(refusal: FontRefusal): FontResult<T> => ({ ok: false, refusal });
const forbidden = <T>(actor: ContentActor, code: Op): FontResult<T> => refuse({ kind: 'forbidden', code, anonymous: isAnonymous(actor) });
const invalidParam = <T>(param: string, message: string): FontResult<T> => refuse({ kind: 'invalid', code: 'rest_invalid_param', message, params: { [param]: message } });

const FAMILY_REQUIRED = ['name', 'slug', 'fontFamily'] as const;
const FACE_REQUIRED = ['fontFamily', 'src'] as const;

/** A settings JSON string parsed to an object with its required string properties, or why not. */
function parseSettings(param: string, json: string, required: readonly string[], partial: boolean): FontResult<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return invalidParam(param, `${param} parameter must be a valid JSON string.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return invalidParam(param, `${param} parameter must be a valid JSON string.`);
  const settings = parsed as Record<string, unknown>;
  for (const key of required) {
    const value = settings[key];
    if (value === undefined && partial) continue;
    const fine = key === 'src' ? srcRefusal(value) === undefined : typeof value === 'string' && value.trim() !== '';
    if (!fine) return invalidParam(param, key === 'src' && value !== undefined ? (srcRefusal(value) as string) : `${param}[${key}] is a required property.`);
  }
  return { ok: true, value: settings };
}

/** Why a face's src is refused: it names font files by http(s) address (one, or a list). */
function srcRefusal(src: unknown): string | undefined {
  const list = typeof src === 'string' ? [src] : Array.isArray(src) ? src : undefined;
  if (!list || list.length === 0) return 'font_face_settings[src] is a required property.';
  for (const url of list) {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return 'font_face_settings[src] must be http(s) addresses of the font files.';
    try {
      new URL(url);
    } catch {
      return 'font_face_settings[src] must be http(s) addresses of the font files.';
    }
  }
  return undefined;
}

const settingsOf = (item: ContentItem): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(item.content);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};
const versionOf = (item: ContentItem): number => (typeof item.meta.theme_json_version === 'number' ? item.meta.theme_json_version : 3);

export class FontLibrary {
  constructor(private readonly deps: { store: Store }) {}

  private get content() {
    return this.deps.store.content;
  }

  private async faceIdsOf(familyIds: readonly number[]): Promise<Map<number, number[]>> {
    const byFamily = new Map<number, number[]>(familyIds.map((id) => [id, []]));
    if (!familyIds.length) return byFamily;
    const { items } = await this.content.listItems({ types: ['wp_font_face'], parents: familyIds, orderby: 'id', order: 'asc', offset: 0, limit: 10_000 });
    for (const face of items) byFamily.get(face.parentId!)?.push(face.id);
    return byFamily;
  }

  private async familyOf(item: ContentItem): Promise<FontFamily> {
    const faces = await this.faceIdsOf([item.id]);
    return { item, settings: { ...settingsOf(item), name: item.title, slug: item.slug }, themeJsonVersion: versionOf(item), faceIds: faces.get(item.id) ?? [] };
  }

  private async familyItem(actor: ContentActor, id: number, op: Op): Promise<FontResult<ContentItem>> {
    if (!mayWrite(actor, null)) return forbidden(actor, op);
    const item = await this.content.getItem(id);
    if (!item || item.type !== 'wp_font_family') return refuse({ kind: 'not_found' });
    return { ok: true, value: item };
  }

  async families(actor: ContentActor, page: FontPage): Promise<FontResult<{ families: FontFamily[]; total: number }>> {
    if (!mayWrite(actor, null)) return forbidden(actor, 'rest_cannot_read');
    const { items, total } = await this.content.listItems({ ...page, types: ['wp_font_family'], owners: [null] });
    const faces = await this.faceIdsOf(items.map((i) => i.id));
    const families = items.map((item) => ({
      item,
      settings: { ...settingsOf(item), name: item.title, slug: item.slug },
      themeJsonVersion: versionOf(item),
      faceIds: faces.get(item.id) ?? [],
    }));
    return { ok: true, value: { families, total } };
  }

  async family(actor: ContentActor, id: number): Promise<FontResult<FontFamily>> {
    const item = await this.familyItem(actor, id, 'rest_cannot_read');
    return item.ok ? { ok: true, value: await this.familyOf(item.value) } : item;
  }

  async createFamily(actor: ContentActor, settingsJson: string, themeJsonVersion: number): Promise<FontResult<FontFamily>> {
    if (!mayWrite(actor, null)) return forbidden(actor, 'rest_cannot_create');
    const parsed = parseSettings('font_family_settings', settingsJson, FAMILY_REQUIRED, false);
    if (!parsed.ok) return parsed;
    const { name, slug, ...rest } = parsed.value as { name: string; slug: string };
    const at = nowIso();
    const created = await this.content.createItem({
      type: 'wp_font_family',
      status: 'publish',
      teamId: null,
      authorId: userIdOf(actor),
      parentId: null,
      slug,
      title: name,
      content: JSON.stringify(rest),
      excerpt: '',
      menuOrder: 0,
      commentStatus: 'closed',
      meta: { theme_json_version: themeJsonVersion },
      trashedFrom: null,
      date: at,
      modified: at,
    });
    if (created === 'slug_taken') return refuse({ kind: 'invalid', code: 'rest_duplicate_font_family', message: `A font family with slug "${slug}" already exists.` });
    return { ok: true, value: await this.familyOf(created) };
  }

  /** Changes a family's settings (the given ones replace theirs) or its theme.json version. */
  async updateFamily(actor: ContentActor, id: number, settingsJson: string | undefined, themeJsonVersion: number | undefined): Promise<FontResult<FontFamily>> {
    const current = await this.familyItem(actor, id, 'rest_cannot_edit');
    if (!current.ok) return current;
    let title: string | undefined;
    let slug: string | undefined;
    let content: string | undefined;
    if (settingsJson !== undefined) {
      const parsed = parseSettings('font_family_settings', settingsJson, FAMILY_REQUIRED, true);
      if (!parsed.ok) return parsed;
      const { name, slug: wanted, ...rest } = parsed.value as { name?: string; slug?: string };
      title = name;
      slug = wanted;
      content = JSON.stringify({ ...settingsOf(current.value), ...rest });
    }
    const meta = themeJsonVersion === undefined ? undefined : { ...current.value.meta, theme_json_version: themeJsonVersion };
    const updated = await this.content.updateItem(id, { title, slug, content, meta, modified: nowIso() });
    if (updated === undefined) return refuse({ kind: 'not_found' });
    if (updated === 'slug_taken') return refuse({ kind: 'invalid', code: 'rest_duplicate_font_family', message: `A font family with slug "${slug}" already exists.` });
    return { ok: true, value: await this.familyOf(updated) };
  }

  /** Deletes a family with its faces; only with `force` (fonts have no trash). */
  async removeFamily(actor: ContentActor, id: number, force: boolean): Promise<FontResult<FontFamily>> {
    const current = await this.familyItem(actor, id, 'rest_cannot_delete');
    if (!current.ok) return current;
    if (!force) return refuse({ kind: 'trash_not_supported', what: 'type' });
    const family = await this.familyOf(current.value);
    for (const faceId of family.faceIds) await this.content.deleteItem(faceId);
    const gone = await this.content.deleteItem(id);
    return gone ? { ok: true, value: family } : refuse({ kind: 'not_found' });
  }

  async faces(actor: ContentActor, familyId: number, page: FontPage): Promise<FontResult<{ faces: FontFace[]; total: number }>> {
    const family = await this.familyItem(actor, familyId, 'rest_cannot_read');
    if (!family.ok) return family;
    const { items, total } = await this.content.listItems({ ...page, types: ['wp_font_face'], parents: [familyId] });
    return { ok: true, value: { faces: items.map((item) => ({ item, settings: settingsOf(item), themeJsonVersion: versionOf(item) })), total } };
  }

  /** A face of the family; a face of another family is 'rest_font_face_parent_id_mismatch'. */
  async face(actor: ContentActor, familyId: number, id: number, op: Op = 'rest_cannot_read'): Promise<FontResult<FontFace>> {
    const family = await this.familyItem(actor, familyId, op);
    if (!family.ok) return family;
    const item = await this.content.getItem(id);
    if (!item || item.type !== 'wp_font_face') return refuse({ kind: 'not_found' });
    if (item.parentId !== familyId) {
      return refuse({
        kind: 'invalid',
        code: 'rest_font_face_parent_id_mismatch',
        message: `The font face does not belong to the specified font family with an ID of ${familyId}.`,
      });
    }
    return { ok: true, value: { item, settings: settingsOf(item), themeJsonVersion: versionOf(item) } };
  }

  async createFace(actor: ContentActor, familyId: number, settingsJson: string, themeJsonVersion: number): Promise<FontResult<FontFace>> {
    const family = await this.familyItem(actor, familyId, 'rest_cannot_create');
    if (!family.ok) return family;
    const parsed = parseSettings('font_face_settings', settingsJson, FACE_REQUIRED, false);
    if (!parsed.ok) return parsed;
    const s = parsed.value;
    const at = nowIso();
    const created = await this.content.createItem({
      type: 'wp_font_face',
      status: 'publish',
      teamId: null,
      authorId: userIdOf(actor),
      parentId: familyId,
      slug: '',
      title: [s.fontFamily, s.fontStyle, s.fontWeight].filter((v) => typeof v === 'string' || typeof v === 'number').join(' '),
      content: JSON.stringify(s),
      excerpt: '',
      menuOrder: 0,
      commentStatus: 'closed',
      meta: { theme_json_version: themeJsonVersion },
      trashedFrom: null,
      date: at,
      modified: at,
    });
    if (created === 'slug_taken') return refuse({ kind: 'not_found' });
    return { ok: true, value: { item: created, settings: s, themeJsonVersion } };
  }

  async removeFace(actor: ContentActor, familyId: number, id: number, force: boolean): Promise<FontResult<FontFace>> {
    const face = await this.face(actor, familyId, id, 'rest_cannot_delete');
    if (!face.ok) return face;
    if (!force) return refuse({ kind: 'trash_not_supported', what: 'type' });
    await this.content.deleteItem(id);
    return face;
  }
}
