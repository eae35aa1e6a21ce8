// Media in SQLite: the row and its bytes inserted in one transaction (synchronous = FULL: both are on disk when
// the insert returns, or neither after a crash), the bytes deleted with the row (ON DELETE CASCADE).
import type { Sql } from './sql.js';
import type { Media, MediaChange, MediaFilter, MediaSort, NewMedia } from '../../domain/media.js';
import type { MediaRepository, MediaWindow } from '../media.js';
import { countOf } from '../decode.js';
import { CHANGE_COLUMNS, decodeMedia, MEDIA_COLUMNS, mediaOrder, mediaValues, mediaWhere, type Dialect } from '../media-row.js';

type Param = string | number | null;
const dialect: Dialect<Param> = {
  inList: (column, values, params) => {
    params.push(...values);
    return `${column} IN (${values.map(() => '?').join(', ')})`;
  },
  one: (value, params) => {
    params.push(value);
    return '?';
  },
};

export class MediaStore implements MediaRepository {
  constructor(private readonly sql: Sql) {}

  async add(m: NewMedia): Promise<Media> {
    return this.sql.tx(async (q) => {
      const values = mediaValues(m);
      const { lastId } = await q.run(`INSERT INTO media (${MEDIA_COLUMNS.replace('id, ', '')}) VALUES (${values.map(() => '?').join(', ')})`, values);
      await q.run('INSERT INTO media_files (media_id, content) VALUES (?, ?)', [lastId, m.content]);
      return decodeMedia((await q.get(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ?`, [lastId]))!);
    });
  }

  async find(id: number): Promise<Media | undefined> {
    const row = await this.sql.get(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ?`, [id]);
    return row && decodeMedia(row);
  }

  async byStorageKey(key: string): Promise<{ media: Media; content: Buffer } | undefined> {
    const row = await this.sql.get(
      `SELECT ${MEDIA_COLUMNS.replace(/(\w+)/g, 'm.$1')}, f.content FROM media m JOIN media_files f ON f.media_id = m.id WHERE m.storage_key = ?`,
      [key],
    );
    if (!row) return undefined;
    if (!Buffer.isBuffer(row.content)) throw new Error('media: the content column did not decode as bytes');
    return { media: decodeMedia(row), content: row.content };
  }

  async list(filter: MediaFilter, sort: MediaSort, window: MediaWindow): Promise<{ rows: Media[]; total: number }> {
    const params: Param[] = [];
    const where = mediaWhere(filter, dialect, params);
    const countParams = [...params];
    const order = mediaOrder(sort, filter.include, dialect, params);
    const rows = await this.sql.all(`SELECT ${MEDIA_COLUMNS} FROM media WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, window.limit, window.offset]);
    const total = countOf((await this.sql.get(`SELECT COUNT(*) AS n FROM media WHERE ${where}`, countParams))!);
    return { rows: rows.map(decodeMedia), total };
  }

  async update(id: number, change: MediaChange, modified: string): Promise<Media | undefined> {
    const sets: string[] = ['modified = ?'];
    const params: Param[] = [modified];
    for (const [key, column] of Object.entries(CHANGE_COLUMNS)) {
      const value = change[key as keyof MediaChange];
      if (value === undefined) continue;
      sets.push(`${column} = ?`);
      params.push(value);
    }
    const [row] = await this.sql.returning(`UPDATE media SET ${sets.join(', ')} WHERE id = ? RETURNING ${MEDIA_COLUMNS}`, [...params, id]);
    return row && decodeMedia(row);
  }

  async remove(id: number): Promise<Media | undefined> {
    const [row] = await this.sql.returning(`DELETE FROM media WHERE id = ? RETURNING ${MEDIA_COLUMNS}`, [id]);
    return row && decodeMedia(row);
  }
}
