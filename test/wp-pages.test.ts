// wp/v2 pages (the platform's documentation) over real HTTP, as WordPress's rest-pages-controller tests check
// them: parents and menu order, the link under /docs/, the edit context and drafts for operators only, a parent
// of another type refused; and oEmbed's embed of a published page of Tern's own (json and xml), a draft's refused.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;
const createPage = (body: Json, by: SignedIn = operator) => h.request<Json>('POST', `${WP}/pages`, { body, ...withSession(by) });

const guide = (await createPage({ title: 'Sending guide', content: 'How to send', excerpt: 'All about sending', status: 'publish' })).body;
const limits = (await createPage({ title: 'Sending limits', content: 'Per hour', status: 'publish', parent: guide.id, menu_order: 2 })).body;
const draft = (await createPage({ title: 'Unfinished', content: 'soon' })).body;

t.test('pages have parents, menu order and their link under /docs/; a post is no parent of a page', async (t) => {
  t.same([limits.parent, limits.menu_order, limits.link], [guide.id, 2, `${h.url}/docs/sending-limits`]);
  t.notOk('categories' in limits, 'pages have no categories');
  const children = await h.request<Json[]>('GET', `${WP}/pages?parent=${guide.id}`);
  t.same(
    children.body.map((p) => p.id),
    [limits.id],
  );
  const post = (await h.request<Json>('POST', `${WP}/posts`, { body: { title: 'A post', status: 'publish' }, ...withSession(operator) })).body;
  const refused = await createPage({ title: 'Orphan', parent: post.id });
  t.same([refused.status, refused.body.code], [404, 'rest_post_invalid_parent']);
  const byOwner = await createPage({ title: 'Mine' }, owner.session);
  t.same([byOwner.status, byOwner.body.code], [403, 'rest_cannot_create'], 'docs are the platform’s');
  const up = await h.request<Json>('GET', `${WP}/pages/${limits.id}?_embed=up`);
  t.equal(up.body._embedded.up[0].title.rendered, 'Sending guide', 'the parent embedded');
});

t.test('anyone reads published pages; a draft is for operators; a post id is no page', async (t) => {
  const listed = await h.request<Json[]>('GET', `${WP}/pages?orderby=menu_order&order=asc`);
  t.same(listed.body.map((p) => p.id).sort(), [guide.id, limits.id].sort());
  t.equal((await h.request<Json>('GET', `${WP}/pages/${draft.id}`)).status, 401);
  t.equal((await h.request<Json>('GET', `${WP}/pages/${draft.id}`, withSession(operator))).body.title.rendered, 'Unfinished');
  const post = (await h.request<Json>('POST', `${WP}/posts`, { body: { title: 'Another post', status: 'publish' }, ...withSession(operator) })).body;
  const wrongType = await h.request<Json>('GET', `${WP}/pages/${post.id}`);
  t.same([wrongType.status, wrongType.body.code], [404, 'rest_post_invalid_id']);
});

t.test("oEmbed embeds a published page of Tern's own, as json or xml; a draft's or another path's URL is not embeddable", async (t) => {
  const url = encodeURIComponent(`${h.url}/docs/sending-limits`);
  const json = await h.request<Json>('GET', `/api/oembed/1.0/embed?url=${url}`);
  t.equal(json.status, 200);
  t.match(json.body, { version: '1.0', type: 'rich', title: 'Sending limits', provider_url: String });
  t.match(json.body.html, /<blockquote/);
  const xml = await fetch(`${h.url}/api/oembed/1.0/embed?url=${url}&format=xml`);
  t.match(xml.headers.get('content-type') ?? '', /xml/);
  t.match(await xml.text(), /<title>Sending limits<\/title>/);
  const proxied = await h.request<Json>('GET', `/api/oembed/1.0/proxy?url=${url}`, withSession(operator));
  t.same([proxied.status, proxied.body.title], [200, 'Sending limits'], 'the proxy answers its own site from its content');
  for (const path of ['/docs/unfinished', `/docs/?p=${draft.id}`, '/news/sending-limits', '/docs/nothing-here']) {
    const refused = await h.request<Json>('GET', `/api/oembed/1.0/embed?url=${encodeURIComponent(`${h.url}${path}`)}`);
    t.same([refused.status, refused.body.code], [404, 'oembed_invalid_url'], path);
  }
});
