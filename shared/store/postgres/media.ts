// Media in PostgreSQL: as SQLite's (store/sqlite/media.ts): the row and its bytes inserted in one transaction,
// the bytes deleted with the row (ON DELETE CASCADE); a list of ids or slugs is one array parameter.
import type { PgSql, SqlValue } from './sql.js';
import type { Media, MediaChange, MediaFilter, MediaSort, NewMedia } from '../../domain/media.js';
import type { MediaRepository, MediaWindow } from '../media.js';
import { countOf } from '../decode.js';
import { CHANGE_COLUMNS, decodeMedia, MEDIA_COLUMNS, mediaOrder, mediaValues, mediaWhere, type Dialect } from '../media-row.js';

const dialect: Dialect<SqlValue> = {
  inList: (column, values, params) => {
    params.push(values);
    return `${column} = ANY($${params.length})`;
  },
  one: (value, params) => {
    params.push(value);
    return `$${params.length}`;
  },
};

export class PgMediaStore implements MediaRepository {
  constructor(private readonly sql: PgSql) {}

  async add(m: NewMedia): Promise<Media> {
    return this.sql.tx(async (q) => {
      const values = mediaValues(m);
      const row = await q.get(
        `INSERT INTO media (${MEDIA_COLUMNS.replace('id, ', '')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${MEDIA_COLUMNS}`,
        values,
      );
      const media = decodeMedia(row!);
      await q.run('INSERT INTO media_files (media_id, content) VALUES ($1, $2)', [media.id, m.content]);
      return media;
    });
  }

  async find(id: number): Promise<Media | undefined> {
    const row = await this.sql.get(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = $1`, [id]);
    return row && decodeMedia(row);
  }

  async byStorageKey(key: string): Promise<{ media: Media; content: Buffer } | undefined> {
    const row = await this.sql.get(
      `SELECT ${MEDIA_COLUMNS.replace(/(\w+)/g, 'm.$1')}, f.content FROM media m JOIN media_files f ON f.media_id = m.id WHERE m.storage_key = $1`,
      [key],
    );
    if (!row) return undefined;
    if (!Buffer.isBuffer(row.content)) throw new Error('media: the content column did not decode as bytes');
    return { media: decodeMedia(row), content: row.content };
  }

  async list(filter: MediaFilter, sort: MediaSort, window: MediaWindow): Promise<{ rows: Media[]; total: number }> {
    const params: SqlValue[] = [];
    const where = mediaWhere(filter, dialect, params);
    const countParams = [...params];
    const order = mediaOrder(sort, filter.include, dialect, params);
    params.push(window.limit, window.offset);
    const rows = await this.sql.allPlannedPerCall(
      `SELECT ${MEDIA_COLUMNS} FROM media WHERE ${where} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    const total = countOf((await this.sql.get(`SELECT COUNT(*)::int AS n FROM media WHERE ${where}`, countParams))!);
    return { rows: rows.map(decodeMedia), total };
  }

  async update(id: number, change: MediaChange, modified: string): Promise<Media | undefined> {
    const params: SqlValue[] = [modified];
    const sets: string[] = ['modified = $1'];
    for (const [key, column] of Object.entries(CHANGE_COLUMNS)) {
      const value = change[key as keyof MediaChange];
      if (value === undefined) continue;
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    }
    params.push(id);
    const row = await this.sql.get(`UPDATE media SET ${sets.join(', ')} WHERE id = $${params.length} RETURNING ${MEDIA_COLUMNS}`, params);
    return row && decodeMedia(row);
  }

  async remove(id: number): Promise<Media | undefined> {
    const row = await this.sql.get(`DELETE FROM media WHERE id = $1 RETURNING ${MEDIA_COLUMNS}`, [id]);
    return row && decodeMedia(row);
  }
}
