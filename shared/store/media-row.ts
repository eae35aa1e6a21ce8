// Media rows as both engines store them (the same columns), decoded; and the list's WHERE and ORDER BY, built
// once for both engines' placeholders.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { likeContains } from './like.js';
import { MEDIA_STATUSES, type Media, type MediaFilter, type MediaSort } from '../domain/media.js';

export const MEDIA_COLUMNS =
  'id, team_id, author_id, title, caption, alt_text, description, slug, status, mime_type, size, sha256, storage_key, file_name, width, height, date, modified';

export const decodeMedia = rowDecoder(
  'media',
  Type.Object({
    id: Int,
    team_id: Nullable(Int),
    author_id: Nullable(Int),
    title: Text,
    caption: Text,
    alt_text: Text,
    description: Text,
    slug: Text,
    status: OneOf(MEDIA_STATUSES),
    mime_type: Text,
    size: Int,
    sha256: Text,
    storage_key: Text,
    file_name: Text,
    width: Nullable(Int),
    height: Nullable(Int),
    date: Text,
    modified: Text,
  }),
  (r): Media => ({
    id: r.id,
    teamId: r.team_id,
    authorId: r.author_id,
    title: r.title,
    caption: r.caption,
    altText: r.alt_text,
    description: r.description,
    slug: r.slug,
    status: r.status,
    mimeType: r.mime_type,
    size: r.size,
    sha256: r.sha256,
    storageKey: r.storage_key,
    fileName: r.file_name,
    width: r.width,
    height: r.height,
    date: r.date,
    modified: r.modified,
  }),
);

/** The insert's values, in MEDIA_COLUMNS' order without the id. */
export const mediaValues = (m: Omit<Media, 'id'>): Array<string | number | null> => [
  m.teamId,
  m.authorId,
  m.title,
  m.caption,
  m.altText,
  m.description,
  m.slug,
  m.status,
  m.mimeType,
  m.size,
  m.sha256,
  m.storageKey,
  m.fileName,
  m.width,
  m.height,
  m.date,
  m.modified,
];

/** A column of a change, with the value to set. */
export const CHANGE_COLUMNS = { title: 'title', caption: 'caption', altText: 'alt_text', description: 'description', slug: 'slug', status: 'status' } as const;

/** A list of values in an engine's form: one placeholder each (SQLite) or one array (PostgreSQL). */
export interface Dialect<P> {
  /** `column IN (…)` or `column = ANY($n)` for the values; pushes the parameters. */
  inList(column: string, values: readonly (string | number)[], params: P[]): string;
  /** The next placeholder for one value, pushed. */
  one(value: string | number | null, params: P[]): string;
}

/** The list's WHERE, every condition of the filter; `1 = 1` when it has none. */
export function mediaWhere<P>(f: MediaFilter, d: Dialect<P>, params: P[]): string {
  const where: string[] = [];
  if (f.teamId === null) where.push('team_id IS NULL');
  else if (f.teamId !== undefined) where.push(`team_id = ${d.one(f.teamId, params)}`);
  where.push(f.statuses.length ? d.inList('status', f.statuses, params) : '1 = 0');
  if (f.include?.length) where.push(d.inList('id', f.include, params));
  if (f.exclude?.length) where.push(`NOT ${d.inList('id', f.exclude, params)}`);
  if (f.slugs?.length) where.push(d.inList('slug', f.slugs, params));
  if (f.authors?.length) where.push(d.inList('author_id', f.authors, params));
  if (f.mediaType === 'image') where.push("mime_type LIKE 'image/%'");
  if (f.mediaType === 'file') where.push("mime_type NOT LIKE 'image/%'");
  if (f.mimeType !== undefined) {
    if (f.mimeType.includes('/')) where.push(`mime_type = ${d.one(f.mimeType, params)}`);
    else where.push(`mime_type LIKE ${d.one(`${f.mimeType.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`, params)} ESCAPE '\\'`);
  }
  if (f.search !== undefined && f.search !== '') {
    const pattern = likeContains(f.search);
    // One placeholder per use: SQLite's `?` takes one value each.
    const matches = ['title', 'caption', 'description', 'file_name'].map((column) => `${column} LIKE ${d.one(pattern, params)} ESCAPE '\\'`);
    where.push(`(${matches.join(' OR ')})`);
  }
  return where.length ? where.join(' AND ') : '1 = 1';
}

const SORT_COLUMNS = { date: 'date', id: 'id', title: 'title', slug: 'slug', modified: 'modified' } as const;

/** The list's ORDER BY; ties broken by id in the same direction, so a page boundary is stable. */
export function mediaOrder<P>(sort: MediaSort, include: readonly number[] | undefined, d: Dialect<P>, params: P[]): string {
  const dir = sort.order === 'asc' ? 'ASC' : 'DESC';
  if (sort.by === 'include') {
    if (!include?.length) return `id ${dir}`;
    // The position of the id in `include`: a CASE the engines both run.
    const cases = include.map((id, i) => `WHEN ${d.one(id, params)} THEN ${i}`).join(' ');
    return `CASE id ${cases} END ASC`;
  }
  const column = SORT_COLUMNS[sort.by];
  return column === 'id' ? `id ${dir}` : `${column} ${dir}, id ${dir}`;
}
