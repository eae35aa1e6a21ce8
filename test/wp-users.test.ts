// WordPress's users collection (wp/v2/users) over real HTTP, ported from WordPress's own controller tests
// (tests/phpunit/tests/rest-api/rest-users-controller.php): statuses, codes, paging headers and the keys of each
// context, for an anonymous caller, a viewer, an owner (and an admin) of an account, and a platform operator;
// create, update, delete with reassign, and /users/me beside the application passwords it must not shadow.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { logIn, operatorOn, PASSWORD, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const USERS = '/api/wp/v2/users';
type Json = Record<string, unknown>;

const VIEW_KEYS = ['_links', 'avatar_urls', 'description', 'id', 'link', 'meta', 'name', 'slug', 'url'];
const EMBED_KEYS = ['_links', 'avatar_urls', 'description', 'id', 'link', 'name', 'slug', 'url'];
const EDIT_KEYS = [
  ...VIEW_KEYS,
  'capabilities',
  'email',
  'extra_capabilities',
  'first_name',
  'last_name',
  'locale',
  'nickname',
  'registered_date',
  'roles',
  'username',
].sort();
const keys = (item: unknown) => Object.keys(item as Json).sort();

interface World {
  accountId: number;
  owner: SignedIn;
  admin: SignedIn;
  viewer: SignedIn;
  ids: { owner: number; admin: number; viewer: number; teamUser: number };
}

const as = (s: SignedIn | undefined, extra: Record<string, unknown> = {}) => (s ? { ...withSession(s), ...extra } : extra);
const get = (path: string, s?: SignedIn) => h.request('GET', path, as(s));
const send = (method: string, path: string, s: SignedIn | undefined, body: Json) => h.request(method, path, as(s, { body }));
const idOf = async (s: SignedIn): Promise<number> => (await get(`${USERS}/me`, s)).body.id as number;

/** An account with an owner, an admin and a viewer on it, and a viewer on one of its teams. */
async function world(): Promise<World> {
  const account = await h.account();
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  const admin = await logIn(h, await userOn(h, account.id, 'admin'));
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  const team = await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(owner), body: { name: `Team ${randomUUID()}` } });
  const teamUser = await logIn(h, await userOn(h, account.id, 'viewer', (team.body as { id: number }).id));
  return {
    accountId: account.id,
    owner,
    admin,
    viewer,
    ids: { owner: await idOf(owner), admin: await idOf(admin), viewer: await idOf(viewer), teamUser: await idOf(teamUser) },
  };
}

const assertError = (t: Test, reply: HttpReply, status: number, code: string, what?: string) => {
  t.equal(reply.status, status, what ?? `${code}: ${reply.text}`);
  t.equal((reply.body as Json).code, code, what ?? code);
};

const newUser = (fields: Json = {}): Json => {
  const tag = randomUUID().slice(0, 8);
  return { username: `user_${tag}`, email: `new-${tag}@example.com`, password: 'a long enough password', ...fields };
};

t.test('anonymous: an empty list with headers, no private context, no user, no /users/me', async (t) => {
  const w = await world();
  const list = await get(USERS);
  t.equal(list.status, 200, list.text);
  t.same(list.body, [], 'no user has published content');
  t.equal(list.headers.get('x-wp-total'), '0');
  t.equal(list.headers.get('x-wp-totalpages'), '0');
  assertError(t, await get(`${USERS}?context=edit`), 401, 'rest_forbidden_context');
  assertError(t, await get(`${USERS}?orderby=email`), 401, 'rest_forbidden_orderby');
  assertError(t, await get(`${USERS}/${w.ids.owner}`), 401, 'rest_user_cannot_view');
  assertError(t, await get(`${USERS}/999999999`), 404, 'rest_user_invalid_id');
  assertError(t, await get(`${USERS}/me`), 401, 'rest_not_logged_in');
  t.equal((await send('POST', USERS, undefined, newUser())).status, 401, 'no one creates a user');
  t.equal((await send('POST', `${USERS}/${w.ids.viewer}`, undefined, { name: 'x' })).status, 401);
  t.equal((await h.request('DELETE', `${USERS}/${w.ids.viewer}?force=true&reassign=false`)).status, 401);
});

t.test("an owner lists its account's users (its teams' too), paged with WordPress's headers and Link keeping the query", async (t) => {
  const w = await world();
  const other = await world();
  const all = await get(`${USERS}?per_page=100&orderby=id`, w.owner);
  t.equal(all.status, 200, all.text);
  t.same(
    (all.body as Json[]).map((u) => u.id),
    [w.ids.owner, w.ids.admin, w.ids.viewer, w.ids.teamUser],
    'ordered by id ascending (the default order), never another account’s',
  );
  t.equal(all.headers.get('x-wp-total'), '4');
  t.same(keys((all.body as Json[])[0]), VIEW_KEYS, 'the view context by default');

  const first = await get(`${USERS}?per_page=2&orderby=id&search=example`, w.owner);
  t.equal(first.headers.get('x-wp-total'), '4');
  t.equal(first.headers.get('x-wp-totalpages'), '2');
  const link = first.headers.get('link') ?? '';
  t.match(link, /rel="next"/);
  t.notMatch(link, /rel="prev"/);
  t.match(link, /per_page=2/);
  t.match(link, /orderby=id/);
  t.match(link, /search=example/);
  t.match(link, /page=2/);
  const second = await get(`${USERS}?per_page=2&orderby=id&search=example&page=2`, w.owner);
  t.same(
    (second.body as Json[]).map((u) => u.id),
    [w.ids.viewer, w.ids.teamUser],
  );
  t.match(second.headers.get('link') ?? '', /rel="prev"/);
  t.notMatch(second.headers.get('link') ?? '', /rel="next"/);
  const past = await get(`${USERS}?per_page=2&page=9`, w.owner);
  t.equal(past.status, 200, 'a page past the end is empty, not refused');
  t.same(past.body, []);
  t.equal(past.headers.get('x-wp-total'), '4');
  t.match(past.headers.get('link') ?? '', /<[^>]*[?&]page=2>; rel="prev"/, 'prev points at the last page');

  const edit = await get(`${USERS}?context=edit&include[]=${w.ids.viewer}`, w.owner);
  t.same(keys((edit.body as Json[])[0]), EDIT_KEYS, 'the edit context for an owner');
  t.match((edit.body as Json[])[0], { roles: ['viewer'], capabilities: { read: true, viewer: true }, extra_capabilities: { viewer: true } });
  const embed = await get(`${USERS}?context=embed&include=${w.ids.viewer}`, w.owner);
  t.same(keys((embed.body as Json[])[0]), EMBED_KEYS);

  const included = await get(`${USERS}?include=${w.ids.viewer},${w.ids.owner},${other.ids.owner}&orderby=include`, w.owner);
  t.same(
    (included.body as Json[]).map((u) => u.id),
    [w.ids.viewer, w.ids.owner],
    'in the order given; another account’s user is not there',
  );
  const excluded = await get(`${USERS}?exclude[]=${w.ids.owner}&exclude[]=${w.ids.admin}&orderby=id`, w.owner);
  t.same(
    (excluded.body as Json[]).map((u) => u.id),
    [w.ids.viewer, w.ids.teamUser],
  );
  const offset = await get(`${USERS}?offset=3&orderby=id`, w.owner);
  t.same(
    (offset.body as Json[]).map((u) => u.id),
    [w.ids.teamUser],
  );
  const desc = await get(`${USERS}?orderby=id&order=desc&per_page=1`, w.owner);
  t.same(
    (desc.body as Json[]).map((u) => u.id),
    [w.ids.teamUser],
  );
  const roles = await get(`${USERS}?roles=admin,owner&orderby=id`, w.owner);
  t.same(
    (roles.body as Json[]).map((u) => u.id),
    [w.ids.owner, w.ids.admin],
  );
  const slug = (all.body as Json[])[2]!.slug as string;
  const bySlug = await get(`${USERS}?slug=${slug}`, w.owner);
  t.same(
    (bySlug.body as Json[]).map((u) => u.id),
    [w.ids.viewer],
  );
  const fields = await get(`${USERS}?_fields=id,name&include=${w.ids.viewer}`, w.owner);
  t.same(keys((fields.body as Json[])[0]), ['id', 'name'], '_fields keeps only the fields named');
  assertError(t, await get(`${USERS}?per_page=101`, w.owner), 400, 'rest_invalid_param');
  assertError(t, await get(`${USERS}?orderby=nickname`, w.owner), 400, 'rest_invalid_param');
});

t.test('a viewer reads its account’s users in view, itself in edit; it may not list privately, order by email or filter by role', async (t) => {
  const w = await world();
  const list = await get(USERS, w.viewer);
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-wp-total'), '4');
  assertError(t, await get(`${USERS}?context=edit`, w.viewer), 403, 'rest_forbidden_context');
  assertError(t, await get(`${USERS}?orderby=email`, w.viewer), 403, 'rest_forbidden_orderby');
  assertError(t, await get(`${USERS}?orderby=registered_date`, w.viewer), 403, 'rest_forbidden_orderby');
  assertError(t, await get(`${USERS}?roles=owner`, w.viewer), 403, 'rest_user_cannot_view');
  const own = await get(`${USERS}/${w.ids.viewer}?context=edit`, w.viewer);
  t.equal(own.status, 200, own.text);
  t.same(keys(own.body), EDIT_KEYS, 'its own user in the edit context');
  const owner = await get(`${USERS}/${w.ids.owner}`, w.viewer);
  t.equal(owner.status, 200);
  t.same(keys(owner.body), VIEW_KEYS);
  t.notOk('email' in (owner.body as Json), 'no email in the view context');
  assertError(t, await get(`${USERS}/${w.ids.owner}?context=edit`, w.viewer), 403, 'rest_forbidden_context');
  assertError(t, await send('POST', USERS, w.viewer, newUser()), 403, 'rest_cannot_create_user');
  assertError(t, await send('POST', `${USERS}/${w.ids.admin}`, w.viewer, { name: 'Renamed' }), 403, 'rest_cannot_edit');
  assertError(t, await send('POST', `${USERS}/${w.ids.viewer}`, w.viewer, { roles: ['admin'] }), 403, 'rest_cannot_edit_roles', 'not its own role');
  assertError(t, await h.request('DELETE', `${USERS}/${w.ids.admin}?force=true&reassign=false`, withSession(w.viewer)), 403, 'rest_user_cannot_delete');
  assertError(
    t,
    await h.request('DELETE', `${USERS}/${w.ids.admin}?reassign=false`, withSession(w.viewer)),
    403,
    'rest_user_cannot_delete',
    'the right is checked before force',
  );
  const renamed = await send('PUT', `${USERS}/${w.ids.viewer}`, w.viewer, { name: 'Vera', first_name: 'Vera', description: 'Reads things' });
  t.equal(renamed.status, 200, renamed.text);
  t.match(renamed.body, { name: 'Vera', first_name: 'Vera', description: 'Reads things', roles: ['viewer'] });
  const other = await world();
  assertError(t, await get(`${USERS}/${other.ids.owner}`, w.viewer), 404, 'rest_user_invalid_id', 'another account’s user is not found');
});

t.test('create needs username, email and password; duplicates are refused by WordPress’s codes; 201 with Location', async (t) => {
  const w = await world();
  const missing = await send('POST', USERS, w.owner, { name: 'Nobody' });
  assertError(t, missing, 400, 'rest_missing_callback_param');
  t.same([...(missing.body as { data: { params: string[] } }).data.params].sort(), ['email', 'password', 'username']);
  const body = newUser({ name: 'Nora New', first_name: 'Nora', last_name: 'New', url: 'https://nora.example', description: 'Joins', nickname: 'nn', roles: ['admin'] });
  const made = await send('POST', USERS, w.owner, body);
  t.equal(made.status, 201, made.text);
  const user = made.body as Json;
  t.same(keys(user), EDIT_KEYS, 'answered in the edit context');
  t.match(user, {
    username: body.username,
    email: body.email,
    name: 'Nora New',
    first_name: 'Nora',
    last_name: 'New',
    url: 'https://nora.example',
    nickname: 'nn',
    roles: ['admin'],
  });
  t.equal(user.slug, (body.username as string).toLowerCase());
  t.notOk('password' in user, 'the password is never shown');
  t.equal(made.headers.get('location'), `${h.url}/api/wp/v2/users/${String(user.id)}`);
  t.equal((await logIn(h, body.email as string, body.password as string)).reply.status, 200, 'the new user signs in with the password given');

  assertError(t, await send('POST', USERS, w.owner, newUser({ username: (body.username as string).toUpperCase() })), 400, 'existing_user_login');
  assertError(t, await send('POST', USERS, w.owner, newUser({ email: (body.email as string).toUpperCase() })), 400, 'existing_user_email');
  assertError(t, await send('POST', USERS, w.owner, newUser({ username: 'bad<name>' })), 400, 'rest_invalid_param');
  assertError(t, await send('POST', USERS, w.owner, newUser({ email: 'not-an-email' })), 400, 'rest_invalid_param');
  assertError(t, await send('POST', USERS, w.owner, newUser({ password: 'short' })), 400, 'rest_invalid_param');
  assertError(t, await send('POST', USERS, w.owner, newUser({ roles: ['root'] })), 400, 'rest_invalid_param');
  assertError(t, await send('POST', USERS, w.admin, newUser({ roles: ['owner'] })), 403, 'rest_cannot_edit_roles', 'an admin makes no owner');
  const byAdmin = await send('POST', USERS, w.admin, newUser());
  t.equal(byAdmin.status, 201, byAdmin.text);
  t.same((byAdmin.body as Json).roles, ['viewer'], 'a viewer by default');
  t.equal((await get(`${USERS}?per_page=100`, w.owner)).headers.get('x-wp-total'), '6', 'both are the account’s users');
});

t.test('update: profile fields, email and role by an owner; the username never changes; an admin edits no owner', async (t) => {
  const w = await world();
  const changed = await send('PATCH', `${USERS}/${w.ids.viewer}`, w.owner, {
    first_name: 'Val',
    last_name: 'Viewer',
    nickname: 'vv',
    url: 'https://val.example',
    locale: 'en_US',
    slug: 'val',
    roles: ['admin'],
  });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { first_name: 'Val', last_name: 'Viewer', nickname: 'vv', url: 'https://val.example', locale: 'en_US', slug: 'val', roles: ['admin'] });
  const username = (changed.body as Json).username as string;
  t.equal((await send('POST', `${USERS}/${w.ids.viewer}`, w.owner, { username, name: 'Same Login' })).status, 200, 'sending the same username is fine');
  assertError(t, await send('POST', `${USERS}/${w.ids.viewer}`, w.owner, { username: 'someone_else' }), 400, 'rest_user_invalid_argument');
  const email = `moved-${randomUUID()}@example.com`;
  const moved = await send('PUT', `${USERS}/${w.ids.viewer}`, w.owner, { email });
  t.equal(moved.status, 200, 'an owner changes a user’s email without its password');
  t.equal((await logIn(h, email)).reply.status, 200);
  assertError(t, await send('PUT', `${USERS}/${w.ids.viewer}`, w.owner, { url: 'javascript:alert(1)' }), 400, 'rest_invalid_param');
  assertError(t, await send('PUT', `${USERS}/${w.ids.owner}`, w.admin, { name: 'Demoted' }), 403, 'rest_cannot_edit', 'an admin edits no owner');
  assertError(t, await send('PUT', `${USERS}/${w.ids.viewer}`, w.admin, { roles: ['owner'] }), 403, 'rest_cannot_edit_roles');
  assertError(t, await send('PUT', `${USERS}/999999999`, w.owner, { name: 'x' }), 404, 'rest_user_invalid_id');
  const password = await send('PUT', `${USERS}/${w.ids.teamUser}`, w.owner, { password: 'a password set by the owner' });
  t.equal(password.status, 200);
  t.equal((await logIn(h, (await get(`${USERS}/${w.ids.teamUser}?context=edit`, w.owner)).body.email as string, 'a password set by the owner')).reply.status, 200);
});

t.test('delete needs force and reassign; a bad reassign is refused; it answers deleted and previous', async (t) => {
  const w = await world();
  const made = (await send('POST', USERS, w.owner, newUser())).body as Json;
  const path = `${USERS}/${String(made.id)}`;
  assertError(t, await h.request('DELETE', `${path}?force=true`, withSession(w.owner)), 400, 'rest_missing_callback_param');
  assertError(t, await h.request('DELETE', `${path}?reassign=false`, withSession(w.owner)), 501, 'rest_trash_not_supported');
  assertError(t, await h.request('DELETE', `${path}?force=true&reassign=999999999`, withSession(w.owner)), 400, 'rest_user_invalid_reassign');
  assertError(t, await h.request('DELETE', `${path}?force=true&reassign=${String(made.id)}`, withSession(w.owner)), 400, 'rest_user_invalid_reassign', 'not to itself');
  const other = await world();
  assertError(
    t,
    await h.request('DELETE', `${path}?force=true&reassign=${other.ids.owner}`, withSession(w.owner)),
    400,
    'rest_user_invalid_reassign',
    'not to another account',
  );
  assertError(t, await h.request('DELETE', `${path}?force=true&reassign=banana`, withSession(w.owner)), 400, 'rest_invalid_param');
  assertError(t, await h.request('DELETE', `${USERS}/${w.ids.owner}?force=true&reassign=false`, withSession(w.owner)), 403, 'rest_user_cannot_delete', 'an owner stays');
  assertError(t, await h.request('DELETE', `${USERS}/${other.ids.viewer}?force=true&reassign=false`, withSession(w.owner)), 404, 'rest_user_invalid_id');

  const deleted = await h.request('DELETE', `${path}?force=true&reassign=${w.ids.admin}`, withSession(w.owner));
  t.equal(deleted.status, 200, deleted.text);
  t.equal((deleted.body as Json).deleted, true);
  t.same(keys((deleted.body as Json).previous), EDIT_KEYS);
  t.match((deleted.body as Json).previous, { id: made.id, username: made.username });
  assertError(t, await get(path, w.owner), 404, 'rest_user_invalid_id');
  t.equal((await logIn(h, made.email as string, 'a long enough password')).reply.status, 401, 'the deleted user signs in no more');

  const second = (await send('POST', USERS, w.owner, newUser())).body as Json;
  const byBody = await h.request('DELETE', `${USERS}/${String(second.id)}`, { ...withSession(w.owner), body: { force: true, reassign: false } });
  t.equal(byBody.status, 200, 'force and reassign=false in the body');
  const third = (await send('POST', USERS, w.owner, newUser())).body as Json;
  const overridden = await h.request('POST', `${USERS}/${String(third.id)}?_method=DELETE&force=true&reassign=false`, withSession(w.owner));
  t.equal(overridden.status, 200, '_method=DELETE on a POST');
});

t.test('/users/me: the caller in either context, its own changes (email and password with current_password), application passwords beside it', async (t) => {
  const w = await world();
  const me = await get(`${USERS}/me`, w.admin);
  t.equal(me.status, 200);
  t.same(keys(me.body), VIEW_KEYS);
  t.equal((me.body as Json).id, w.ids.admin);
  const edit = await get(`${USERS}/me?context=edit`, w.admin);
  t.same(keys(edit.body), EDIT_KEYS);
  t.match(edit.body, { roles: ['admin'], capabilities: { list_users: true, admin: true } });
  const fields = await get(`${USERS}/me?_fields=id,roles&context=edit`, w.admin);
  t.same(fields.body, { id: w.ids.admin, roles: ['admin'] });
  const renamed = await send('POST', `${USERS}/me`, w.admin, { name: 'Ada Admin', description: 'Runs things' });
  t.equal(renamed.status, 200, renamed.text);
  t.match(renamed.body, { id: w.ids.admin, name: 'Ada Admin', description: 'Runs things' });
  const email = `me-${randomUUID()}@example.com`;
  assertError(t, await send('POST', `${USERS}/me`, w.admin, { email }), 400, 'rest_missing_callback_param');
  assertError(t, await send('POST', `${USERS}/me`, w.admin, { email, current_password: 'wrong password' }), 400, 'rest_incorrect_password');
  t.equal((await send('POST', `${USERS}/me`, w.admin, { email, current_password: PASSWORD })).status, 200);
  t.equal((await logIn(h, email)).reply.status, 200);
  const other = await logIn(h, email);
  const newPassword = 'my own new passphrase';
  assertError(t, await send('POST', `${USERS}/me`, w.admin, { password: newPassword }), 400, 'rest_missing_callback_param');
  t.equal((await send('POST', `${USERS}/me`, w.admin, { password: newPassword, current_password: PASSWORD })).status, 200);
  t.equal((await get(`${USERS}/me`, w.admin)).status, 200, 'the session that changed it stays');
  assertError(t, await get(`${USERS}/me`, other), 401, 'rest_not_logged_in', 'another session of the user ended');
  t.equal((await logIn(h, email, newPassword)).reply.status, 200, 'the new password signs in');

  const apps = await get(`${USERS}/me/application-passwords`, w.admin);
  t.equal(apps.status, 200, 'the application passwords are still served');
  t.ok(Array.isArray(apps.body));
  const created = await send('POST', `${USERS}/me/application-passwords`, w.admin, { name: `app ${randomUUID()}` });
  t.equal(created.status, 201, created.text);
  const appPassword = (created.body as Json).password as string;
  const basic = { authorization: `Basic ${Buffer.from(`${email}:${appPassword}`).toString('base64')}` };
  const viaApp = await h.request('GET', `${USERS}/me?context=edit`, { headers: basic });
  t.equal(viaApp.status, 200, 'an application password reaches /users/me');
  t.equal((viaApp.body as Json).email, email);
});

t.test('an operator sees and edits every user, creates operators, deletes an account’s user', async (t) => {
  const w = await world();
  const other = await world();
  const operator = await logIn(h, await operatorOn(h));
  const operatorId = await idOf(operator);
  const list = await get(`${USERS}?include=${w.ids.owner},${other.ids.viewer},${operatorId}&orderby=include&context=edit`, operator);
  t.equal(list.status, 200, list.text);
  t.same(
    (list.body as Json[]).map((u) => u.id),
    [w.ids.owner, other.ids.viewer, operatorId],
  );
  t.match((list.body as Json[])[2], { roles: ['operator'], capabilities: { manage_options: true, edit_others_posts: true } });
  t.equal(Number((await get(USERS, operator)).headers.get('x-wp-total')) >= 9, true, 'every account’s users');
  const promoted = await send('PUT', `${USERS}/${other.ids.viewer}`, operator, { roles: ['owner'] });
  t.equal(promoted.status, 200, promoted.text);
  t.match(promoted.body, { roles: ['owner'] });
  assertError(t, await send('PUT', `${USERS}/${other.ids.teamUser}`, operator, { roles: ['owner'] }), 400, 'rest_invalid_param', 'an owner belongs to the account');
  const made = await send('POST', USERS, operator, newUser());
  t.equal(made.status, 201, made.text);
  t.match(made.body, { roles: ['operator'] });
  assertError(t, await send('POST', USERS, operator, newUser({ roles: ['viewer'] })), 400, 'rest_invalid_param');
  const deleted = await h.request('DELETE', `${USERS}/${w.ids.viewer}?force=true&reassign=${w.ids.admin}`, withSession(operator));
  t.equal(deleted.status, 200, deleted.text);
  assertError(t, await get(`${USERS}/${w.ids.viewer}`, w.owner), 404, 'rest_user_invalid_id');
  assertError(t, await get(`${USERS}/${operatorId}`, w.owner), 404, 'rest_user_invalid_id', 'an account never sees an operator');
});

t.test('a deleted author’s posts go to the user named by reassign; with reassign=false they stay, authored by nobody', async (t) => {
  const operator = await logIn(h, await operatorOn(h));
  const writer = await logIn(h, await operatorOn(h));
  const writerId = await idOf(writer);
  const post = await send('POST', '/api/wp/v2/posts', writer, { title: `Release ${randomUUID()}`, status: 'publish' });
  t.equal(post.status, 201, post.text);
  t.equal((post.body as Json).author, writerId);
  const w = await world();
  const asAuthor = await get(`${USERS}/${writerId}`);
  t.equal(asAuthor.status, 200, 'anyone reads the author of a published post');
  t.same(keys(asAuthor.body), VIEW_KEYS);
  assertError(t, await get(`${USERS}/${writerId}?context=edit`), 401, 'rest_forbidden_context');
  t.equal((await get(`${USERS}/${writerId}`, w.viewer)).status, 200, 'an account’s user too, though the author is an operator');
  assertError(t, await get(`${USERS}/${await idOf(operator)}`), 401, 'rest_user_cannot_view', 'not a user who published nothing');
  const embedded = await get(`/api/wp/v2/posts/${String((post.body as Json).id)}?_embed=author`);
  t.match(embedded.body, { _embedded: { author: [{ id: writerId }] } }, 'a post embeds its author for anyone');
  const postPath = `/api/wp/v2/posts/${String((post.body as Json).id)}`;
  const heirId = await idOf(operator);
  const deleted = await h.request('DELETE', `${USERS}/${writerId}?force=true&reassign=${heirId}`, withSession(operator));
  t.equal(deleted.status, 200, deleted.text);
  t.equal(((await get(`${postPath}?context=edit`, operator)).body as Json).author, heirId, 'the post is the heir’s');

  const second = await logIn(h, await operatorOn(h));
  const secondId = await idOf(second);
  const other = await send('POST', '/api/wp/v2/posts', second, { title: `Notice ${randomUUID()}`, status: 'publish' });
  const removed = await h.request('DELETE', `${USERS}/${secondId}?force=true&reassign=false`, withSession(operator));
  t.equal(removed.status, 200, removed.text);
  const kept = await get(`/api/wp/v2/posts/${String((other.body as Json).id)}?context=edit`, operator);
  t.equal(kept.status, 200, 'the post stays');
  t.equal((kept.body as Json).author, 0, 'authored by nobody');
});
