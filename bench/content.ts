// bench/content: the content namespace (wp/v2) over HTTP with BENCH_CONTENT_POSTS (100,000) posts in 20 categories
// and BENCH_CONTENT_MEDIA (10,000) media items, written through the store's repositories (the bench holds no SQL).
// A platform operator made with the CLI calls the routes with an application password, as a WordPress client
// would; each kind of request (lists: first page, a deep page, by category, a search, with _fields and _embed;
// reads of one item) is timed over BENCH_CONTENT_REQS (200) sequential requests and its p50 and p95 printed.
// The target: list and read p95 under 50 ms.
// Env: BENCH_CONTENT_POSTS (100000), BENCH_CONTENT_MEDIA (10000), BENCH_CONTENT_REQS (200).
import { createHash } from 'node:crypto';
import type { Store } from '../shared/store/index.js';
import type { NewContentItem } from '../shared/store/content.js';
import { api, benchDeployment, envInt, fmt, log, operatorCredentials, percentile, runBench, stopTern, table, type BenchRow } from './lib.js';

const postCount = envInt('BENCH_CONTENT_POSTS', 100_000);
const mediaCount = envInt('BENCH_CONTENT_MEDIA', 10_000);
const requests = envInt('BENCH_CONTENT_REQS', 200);
const WORDS = ['release', 'deliverability', 'changelog', 'incident', 'maintenance', 'pricing', 'feature', 'api', 'dns', 'webhook'];

async function makeCategories(store: Store): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < 20; i++) {
    const made = await store.content.createTerm({ taxonomy: 'category', name: `Category ${i}`, slug: `category-${i}`, description: '', parentId: null });
    ids.push('exists' in made ? made.exists : made.id);
  }
  return ids;
}

function post(i: number, categories: readonly number[], start: number): NewContentItem {
  const at = new Date(start + i * 60_000).toISOString();
  const word = WORDS[i % WORDS.length]!;
  return {
    type: 'post',
    status: i % 50 === 0 ? 'draft' : 'publish',
    teamId: null,
    authorId: null,
    parentId: null,
    slug: `post-${i}`,
    title: `${word} note ${i}`,
    content: `<!-- wp:paragraph --><p>${word} details for ${i}, ${'lorem ipsum '.repeat(40)}</p><!-- /wp:paragraph -->`,
    excerpt: `${word} ${i}`,
    menuOrder: 0,
    commentStatus: 'closed',
    meta: {},
    trashedFrom: null,
    date: at,
    modified: at,
    termIds: [categories[i % categories.length]!],
  };
}

async function makePosts(store: Store, categories: readonly number[]): Promise<void> {
  const start = Date.now() - postCount * 60_000;
  const began = Date.now();
  for (let i = 0; i < postCount; i++) {
    await store.content.createItem(post(i, categories, start));
    if ((i + 1) % 20_000 === 0) log(`  ${fmt(i + 1)} posts (${fmt((i + 1) / ((Date.now() - began) / 1000))}/s)`);
  }
}

async function makeMedia(store: Store): Promise<void> {
  const content = Buffer.alloc(2048, 7);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const start = Date.now() - mediaCount * 60_000;
  for (let i = 0; i < mediaCount; i++) {
    const at = new Date(start + i * 60_000).toISOString();
    await store.media.add({
      teamId: null,
      authorId: null,
      title: `logo ${i}`,
      caption: '',
      altText: `logo ${i}`,
      description: '',
      slug: `logo-${i}`,
      status: 'inherit',
      mimeType: 'text/plain',
      size: content.length,
      sha256,
      storageKey: createHash('md5').update(`bench-${i}`).digest('hex'),
      fileName: `logo-${i}.txt`,
      width: null,
      height: null,
      date: at,
      modified: at,
      content,
    });
  }
}

interface Kind {
  name: string;
  path(i: number): string;
}

/** The deepest page the API serves (paging stops at 10,000 records: config's paging policy). */
const DEEPEST_PAGE = 999;

const kinds = (categories: readonly number[]): Kind[] => [
  { name: 'posts (first page)', path: () => '/wp/v2/posts' },
  { name: 'posts?per_page=100', path: () => '/wp/v2/posts?per_page=100' },
  { name: 'posts?page=<deep>', path: (i) => `/wp/v2/posts?page=${1 + ((i * 97) % Math.min(DEEPEST_PAGE, Math.floor((postCount * 0.98) / 10)))}` },
  { name: 'posts?categories=<id>', path: (i) => `/wp/v2/posts?categories=${categories[i % categories.length]}` },
  { name: 'posts?search=<word>', path: (i) => `/wp/v2/posts?search=${WORDS[i % WORDS.length]}%20note%20${i}` },
  { name: 'posts?_fields=id,title', path: () => '/wp/v2/posts?_fields=id,title&per_page=100' },
  { name: 'posts?_embed', path: () => '/wp/v2/posts?_embed' },
  { name: 'posts?status=draft&context=edit', path: () => '/wp/v2/posts?status=draft&context=edit' },
  { name: 'posts/{id}', path: (i) => `/wp/v2/posts/${2 + ((i * 4999) % (postCount - 2))}` },
  { name: 'posts/{id}?context=edit', path: (i) => `/wp/v2/posts/${2 + ((i * 7919) % (postCount - 2))}?context=edit` },
  { name: 'categories', path: () => '/wp/v2/categories?per_page=100' },
  { name: 'media (first page)', path: () => '/wp/v2/media' },
  { name: 'media?page=<deep>', path: (i) => `/wp/v2/media?page=${1 + ((i * 97) % Math.floor(mediaCount / 10))}` },
  { name: 'media?search=<word>', path: (i) => `/wp/v2/media?search=logo%20${i}` },
  { name: 'media/{id}', path: (i) => `/wp/v2/media/${1 + ((i * 4999) % mediaCount)}` },
];

runBench('content', 5400, async () => {
  const d = await benchDeployment('content', { remotePort: 9, config: { limits: { writesPerMinute: 1_000_000 } } });
  const store = await d.store();
  log(`\n[content] ${fmt(postCount)} posts and ${fmt(mediaCount)} media items through the store`);
  const began = Date.now();
  const categories = await makeCategories(store);
  await makePosts(store, categories);
  await makeMedia(store);
  log(`  made in ${fmt((Date.now() - began) / 1000, 0)} s`);

  await d.startApi();
  const auth = await operatorCredentials(d.apiUrl, d.env);
  const get = async (path: string) => {
    const res = await api(d.apiUrl, 'GET', `/api${path}`, auth);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  await get('/wp/v2/posts'); // warms what a running API would have warm

  log(`\n[content] ${requests} sequential requests per kind`);
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  for (const kind of kinds(categories)) {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      await get(kind.path(i));
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const [p50, p95] = [percentile(times, 50), percentile(times, 95)];
    lines.push([kind.name, fmt(p50, 1), fmt(p95, 1), fmt(times.at(-1)!, 1), p95 >= 50 ? 'SLOW' : '']);
    rows.push({ metric: `GET ${kind.name}: p50 | p95`, value: `${fmt(p50, 1)} | ${fmt(p95, 1)} ms`, target: 'p95 < 50 ms' });
    log(`  ${kind.name}: p50 ${fmt(p50, 1)} ms, p95 ${fmt(p95, 1)} ms`);
  }
  await stopTern(d.api!);
  log(`\n${table(['request', 'p50 ms', 'p95 ms', 'max ms', ''], lines)}`);
  return { bench: 'content', rows };
});
