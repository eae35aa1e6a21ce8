// The contract of the content store: items stored with their terms and read back; a slug unique per type and
// owner (a second creation or a change to a taken one refused, nothing written; revisions and empty slugs
// exempt); lists filtered, ordered and paged with their total; terms unique per taxonomy (the second told the
// first's id), counted by their published items; an item's removal takes its revisions and links with it.
import { accountOf, at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { NewContentItem } from '../../../shared/store/content.js';

const item = (fields: Partial<NewContentItem>): NewContentItem => ({
  type: 'post',
  status: 'publish',
  teamId: null,
  authorId: null,
  parentId: null,
  slug: '',
  title: '',
  content: '',
  excerpt: '',
  menuOrder: 0,
  commentStatus: 'closed',
  meta: {},
  trashedFrom: null,
  date: at(0),
  modified: at(0),
  ...fields,
});

const LIST = { types: ['post'] as const, orderby: 'date' as const, order: 'desc' as const, offset: 0, limit: 10 };

export const contentChecks: ContractCheck[] = [
  check('items keep their fields and terms; a slug is its type and owner’s once; revisions and empty slugs repeat', async (t, engine) => {
    const { store } = await engine.open(t);
    const operator = await operatorOf(store, 'ops@example.com');
    const team = await accountOf(store);
    const news = await store.content.createTerm({ taxonomy: 'category', name: 'News', slug: 'news', description: '', parentId: null });
    if ('exists' in news) throw new Error('created');
    t.same(await store.content.createTerm({ taxonomy: 'category', name: 'News!', slug: 'news', description: '', parentId: null }), { exists: news.id });
    t.not('exists' in (await store.content.createTerm({ taxonomy: 'post_tag', name: 'News', slug: 'news', description: '', parentId: null })), true, 'another taxonomy');
    const first = await store.content.createItem(item({ slug: 'hello', title: 'Hello', authorId: operator.id, meta: { a: 1 }, termIds: [news.id] }));
    if (first === 'slug_taken') throw new Error('created');
    t.same({ ...first, id: 0 }, { ...item({ slug: 'hello', title: 'Hello', authorId: operator.id, meta: { a: 1 } }), id: 0, termIds: [news.id] });
    t.same(await store.content.getItem(first.id), first);
    t.equal(await store.content.createItem(item({ slug: 'hello' })), 'slug_taken', 'the same slug of a type and owner');
    t.not(await store.content.createItem(item({ slug: 'hello', type: 'page' })), 'slug_taken', 'another type');
    t.not(await store.content.createItem(item({ slug: 'hello', teamId: team.id })), 'slug_taken', 'another owner');
    t.not(await store.content.createItem(item({ slug: '' })), 'slug_taken');
    t.not(await store.content.createItem(item({ slug: '' })), 'slug_taken', 'empty slugs repeat');
    const revision = await store.content.createItem(item({ type: 'revision', status: 'inherit', parentId: first.id, slug: `${first.id}-revision-v1` }));
    t.not(await store.content.createItem(item({ type: 'revision', status: 'inherit', parentId: first.id, slug: `${first.id}-revision-v1` })), 'slug_taken');
    const other = await store.content.createItem(item({ slug: 'other', date: at(1) }));
    if (other === 'slug_taken') throw new Error('created');
    t.equal(await store.content.updateItem(other.id, { slug: 'hello' }), 'slug_taken', 'a change to a taken slug');
    t.equal((await store.content.getItem(other.id))!.slug, 'other', 'nothing written');
    t.same(await store.content.updateItem(other.id, { title: 'Changed', termIds: [news.id] }), { ...other, title: 'Changed', termIds: [news.id] });
    t.equal(await store.content.updateItem(999_999, { title: 'x' }), undefined);
    t.equal((await store.content.getTerm(news.id))!.count, 2, 'two published items');
    t.equal((await store.content.revisionsOf(first.id)).length, 2);
    t.same(await store.content.deleteItem(first.id), { ...first });
    t.equal(await store.content.getItem(first.id), undefined);
    if (revision !== 'slug_taken') t.equal(await store.content.getItem(revision.id), undefined, 'its revisions went with it');
    t.equal((await store.content.getTerm(news.id))!.count, 1);
    t.equal(await store.content.reassignAuthor(operator.id, null), 0);
  }),

  check('lists filter, order and page in the query and give their total', async (t, engine) => {
    const { store } = await engine.open(t);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await store.content.createItem(
        item({ slug: `p${i}`, title: i % 2 ? `Odd ${i}` : `Even ${i}`, status: i === 4 ? 'draft' : 'publish', date: at(i) }),
      );
      if (created === 'slug_taken') throw new Error('created');
      ids.push(created.id);
    }
    const all = await store.content.listItems({ ...LIST, statuses: ['publish'] });
    t.same(
      all.items.map((i) => i.slug),
      ['p3', 'p2', 'p1', 'p0'],
    );
    t.equal(all.total, 4);
    const paged = await store.content.listItems({ ...LIST, statuses: ['publish'], limit: 2, offset: 2 });
    t.same([paged.items.map((i) => i.slug), paged.total], [['p1', 'p0'], 4]);
    t.same(
      (await store.content.listItems({ ...LIST, search: 'odd' })).items.map((i) => i.slug),
      ['p3', 'p1'],
    );
    t.same(
      (await store.content.listItems({ ...LIST, include: [ids[3]!, ids[0]!], orderby: 'include' })).items.map((i) => i.slug),
      ['p3', 'p0'],
    );
    t.same(
      (await store.content.listItems({ ...LIST, exclude: [ids[3]!], statuses: ['publish'], orderby: 'title', order: 'asc' })).items.map((i) => i.slug),
      ['p0', 'p2', 'p1'],
    );
    t.same(
      (await store.content.listItems({ ...LIST, slugs: ['p2', 'p4'] })).items.map((i) => i.slug),
      ['p4', 'p2'],
    );
    t.same((await store.content.listItems({ ...LIST, statuses: ['publish'], alsoOwnBy: { authorId: 1, statuses: ['draft'] } })).total, 4, 'nobody’s draft');
    t.same((await store.content.listItems({ ...LIST, owners: [] })).total, 0);
    const terms = await store.content.listTerms({ taxonomy: 'category', orderby: 'name', order: 'asc', offset: 0, limit: 10 });
    t.same(terms, { terms: [], total: 0 });
    const a = await store.content.createTerm({ taxonomy: 'post_tag', name: 'A', slug: 'a', description: '', parentId: null });
    const b = await store.content.createTerm({ taxonomy: 'post_tag', name: 'B', slug: 'b', description: '', parentId: null });
    if ('exists' in a || 'exists' in b) throw new Error('created');
    t.same(await store.content.updateTerm(b.id, { slug: 'a' }), { exists: a.id }, 'a taken slug: the holder is told');
    t.equal((await store.content.getTerm(b.id))!.slug, 'b', 'nothing written');
    t.same(await store.content.updateTerm(b.id, { name: 'Bee', description: 'd' }), { ...b, name: 'Bee', description: 'd' });
    t.equal(await store.content.updateTerm(999_999, { name: 'x' }), undefined);
    t.same(await store.content.deleteTerm(a.id), a);
    t.equal(await store.content.deleteTerm(a.id), undefined);
    t.same(
      (await store.content.listTerms({ taxonomy: 'post_tag', orderby: 'name', order: 'asc', offset: 0, limit: 10 })).terms.map((x) => x.slug),
      ['b'],
    );
  }),
];
