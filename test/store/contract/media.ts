// The contract of the media repository: a file kept with its metadata and bytes (read back by its public key),
// lists filtered by team (or the platform's), status, ids, slugs, authors, type and search, in each order with
// the total, a change of the given fields only, and a delete that takes the bytes with the row.
import { createHash, randomBytes } from 'node:crypto';
import { accountOf, at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { Media, MediaFilter, MediaOrder, NewMedia } from '../../../shared/domain/media.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

function fileOf(teamId: number | null, fields: Partial<NewMedia> = {}): NewMedia {
  const content = fields.content ?? PNG;
  return {
    teamId,
    authorId: null,
    title: 'logo',
    caption: '',
    altText: '',
    description: '',
    slug: 'logo',
    status: 'inherit',
    mimeType: 'image/png',
    size: content.length,
    sha256: createHash('sha256').update(content).digest('hex'),
    storageKey: randomBytes(16).toString('hex'),
    fileName: 'logo.png',
    width: 1,
    height: 1,
    date: at(0),
    modified: at(0),
    ...fields,
    content,
  };
}

const all: MediaFilter = { statuses: ['inherit', 'private'] };
const ids = (rows: Media[]) => rows.map((m) => m.id);
const list = (store: Store, filter: Partial<MediaFilter>, by: MediaOrder = 'date', order: 'asc' | 'desc' = 'desc', offset = 0, limit = 10) =>
  store.media.list({ ...all, ...filter }, { by, order }, { offset, limit });

export const mediaChecks: ContractCheck[] = [
  check('a file is kept with its metadata and bytes, found by id and by its public key', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const operator = await operatorOf(store, 'media-op@example.com');
    const { content, ...fields } = fileOf(account.id, { authorId: operator.id, title: 'Logo', caption: 'c', altText: 'a', description: 'd' });
    const added = await store.media.add({ ...fields, content });
    t.same(added, { id: added.id, ...fields });
    t.same(await store.media.find(added.id), added);
    const byKey = await store.media.byStorageKey(fields.storageKey);
    t.same(byKey?.media, added);
    t.ok(byKey?.content.equals(PNG), 'the bytes as sent');
    t.equal(await store.media.byStorageKey('0'.repeat(32)), undefined);
    t.equal(await store.media.find(added.id + 1000), undefined);
    const platform = await store.media.add(fileOf(null));
    t.equal(platform.teamId, null, 'a platform-wide file belongs to no team');
  }),

  check('a list takes a team’s files (or the platform’s, or all), filtered, ordered, paged and counted', async (t, engine) => {
    const { store } = await engine.open(t);
    const a = await accountOf(store, 100, 'A');
    const b = await accountOf(store, 100, 'B');
    const operator = await operatorOf(store, 'media-op2@example.com');
    const one = await store.media.add(fileOf(a.id, { title: 'Beta picture', slug: 'beta', date: at(1), modified: at(5) }));
    const two = await store.media.add(
      fileOf(a.id, {
        title: 'Alpha notes',
        slug: 'alpha',
        mimeType: 'text/plain',
        fileName: 'notes.txt',
        width: null,
        height: null,
        date: at(2),
        modified: at(3),
        authorId: operator.id,
      }),
    );
    const three = await store.media.add(
      fileOf(a.id, { title: 'Gamma 100%_done', slug: 'gamma', status: 'private', mimeType: 'application/pdf', date: at(3), modified: at(4) }),
    );
    const other = await store.media.add(fileOf(b.id, { date: at(4) }));
    const platform = await store.media.add(fileOf(null, { date: at(5) }));

    const page = await list(store, { teamId: a.id });
    t.same(ids(page.rows), [three.id, two.id, one.id], 'newest first; only the team’s');
    t.equal(page.total, 3);
    t.same(ids((await list(store, { teamId: null })).rows), [platform.id], 'the platform’s files');
    t.same(ids((await list(store, {})).rows), [platform.id, other.id, three.id, two.id, one.id], 'every file');
    const window = await list(store, { teamId: a.id }, 'date', 'asc', 1, 1);
    t.same(ids(window.rows), [two.id], 'a window');
    t.equal(window.total, 3, 'the total of the whole list');
    t.same(ids((await list(store, { teamId: a.id, statuses: ['inherit'] })).rows), [two.id, one.id], 'by status');
    t.same(ids((await list(store, { teamId: a.id, statuses: [] })).rows), [], 'no status: nothing');
    t.same(
      ids((await list(store, { teamId: a.id, include: [one.id, three.id, other.id] }, 'include')).rows),
      [one.id, three.id],
      'include, in its order, within the team',
    );
    t.same(ids((await list(store, { teamId: a.id, exclude: [two.id] })).rows), [three.id, one.id], 'exclude');
    t.same(ids((await list(store, { teamId: a.id, slugs: ['alpha', 'gamma'] })).rows), [three.id, two.id], 'by slug');
    t.same(ids((await list(store, { teamId: a.id, authors: [operator.id] })).rows), [two.id], 'by author');
    t.same(ids((await list(store, { teamId: a.id, mediaType: 'image' })).rows), [one.id], 'images');
    t.same(ids((await list(store, { teamId: a.id, mediaType: 'file' })).rows), [three.id, two.id], 'other files');
    t.same(ids((await list(store, { teamId: a.id, mimeType: 'application/pdf' })).rows), [three.id], 'a full type');
    t.same(ids((await list(store, { teamId: a.id, mimeType: 'text' })).rows), [two.id], 'a major type');
    t.same(ids((await list(store, { teamId: a.id, search: 'picture' })).rows), [one.id], 'search in the title');
    t.same(ids((await list(store, { teamId: a.id, search: 'notes.txt' })).rows), [two.id], 'search in the file name');
    t.same(ids((await list(store, { teamId: a.id, search: '0%_' })).rows), [three.id], '% and _ match themselves');
    t.same(ids((await list(store, { teamId: a.id }, 'title', 'asc')).rows), [two.id, one.id, three.id], 'by title');
    t.same(ids((await list(store, { teamId: a.id }, 'slug', 'desc')).rows), [three.id, one.id, two.id], 'by slug');
    t.same(ids((await list(store, { teamId: a.id }, 'modified', 'desc')).rows), [one.id, three.id, two.id], 'by modified');
    t.same(ids((await list(store, { teamId: a.id }, 'id', 'asc')).rows), [one.id, two.id, three.id], 'by id');
  }),

  check('a change sets the given fields and modified only; a delete takes the row and its bytes', async (t, engine) => {
    const { store } = await engine.open(t);
    const a = await accountOf(store);
    const added = await store.media.add(fileOf(a.id, { title: 'Old', altText: 'old alt' }));
    const changed = await store.media.update(added.id, { title: 'New', status: 'private' }, at(9));
    t.same(changed, { ...added, title: 'New', status: 'private', modified: at(9) });
    t.same(await store.media.find(added.id), changed);
    t.equal(await store.media.update(added.id + 1000, { title: 'x' }, at(9)), undefined, 'no such file');
    t.same(await store.media.remove(added.id), changed, 'what was deleted');
    t.equal(await store.media.find(added.id), undefined);
    t.equal(await store.media.byStorageKey(added.storageKey), undefined, 'its bytes are gone too');
    t.equal(await store.media.remove(added.id), undefined, 'a second delete finds nothing');
  }),
];
