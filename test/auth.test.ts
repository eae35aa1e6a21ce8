// Authentication, scopes and X-Account-Id on the admin interface, over real HTTP against real Redis and SQLite.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startHarness, type Harness } from './helpers/harness.js';
import { adminRoutes } from '../api/http/admin/index.js';
import { KeyCache } from '../shared/runtime/key-cache.js';
import { SCOPES, type Scope } from '../shared/scopes.js';

const FAST = { dkim: { keyBits: 1024 } };

let h: Harness;
t.before(async () => {
  h = await startHarness({ overrides: FAST });
});
t.teardown(() => h?.close());

/** A concrete path for a route template (ids need not exist: authentication comes first). */
const concrete = (path: string): string => path.replace('{id}', '1').replace('{message_id}', 'no-such-message');

async function sendingKey(adminKey: string, teamId?: number): Promise<{ id: number; value: string }> {
  const res = await h.request('POST', '/v2/api-keys', { key: adminKey, teamId, body: { name: 'sender' } });
  if (res.status !== 201) throw new Error(`sending key not created: ${res.status} ${res.text}`);
  return { id: res.body.data.id, value: res.body.data.api_key };
}

async function createTeam(key: string, name: string): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`team not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

t.test('authentication', async (t) => {
  t.test('a request without any key is refused with 401 missing_api_key', async (t) => {
    const res = await h.request('GET', '/v2/info');
    t.equal(res.status, 401);
    t.equal(res.body.errors.code, 'missing_api_key');
    t.equal(res.body.status_code, 401);
  });

  t.test('a malformed Authorization header is refused with 401', async (t) => {
    const { key } = await h.account();
    for (const header of [`Basic ${key}`, 'Bearer', 'Bearer ', `Token ${key}`, `Bearer ${key} extra`, `${key}`]) {
      const res = await h.request('GET', '/v2/info', { headers: { authorization: header } });
      t.equal(res.status, 401, `Authorization: ${header.slice(0, 20)}…`);
      t.equal(res.body.errors.code, 'invalid_api_key');
    }
  });

  t.test('an unknown tern_admin_ key is refused with 401 invalid_api_key', async (t) => {
    const res = await h.request('GET', '/v2/info', { key: `tern_admin_${'A'.repeat(43)}` });
    t.equal(res.status, 401);
    t.equal(res.body.errors.code, 'invalid_api_key');
  });

  t.test('a valid admin key in the Authorization header is accepted', async (t) => {
    const { id, key } = await h.account();
    const res = await h.request('GET', '/v2/info', { key });
    t.equal(res.status, 200);
    t.equal(res.body.account.id, id);
  });

  t.test('a sending key is refused with 401 on every admin endpoint', async (t) => {
    const { key } = await h.account();
    const sending = await sendingKey(key);
    t.match(sending.value, /^tern_/);
    t.notMatch(sending.value, /^tern_admin_/);
    for (const route of adminRoutes) {
      const res = await h.request(route.method, concrete(route.path), { key: sending.value, body: route.body ? {} : undefined });
      t.equal(res.status, 401, `${route.method} ${route.path}`);
      t.equal(res.body.errors.code, 'sending_key_not_allowed', `${route.method} ${route.path}`);
    }
  });

  t.test('a sending key given as body api_key instead of the header is refused with 401', async (t) => {
    const { key } = await h.account();
    const sending = await sendingKey(key);
    const res = await h.request('POST', '/v2/teams', { body: { name: 'Via body', api_key: sending.value } });
    t.equal(res.status, 401);
    t.equal(res.body.errors.code, 'sending_key_not_allowed');
  });

  t.test('an admin key given only as body api_key is refused with 401 admin_key_in_body', async (t) => {
    const { key } = await h.account();
    for (const [method, path] of [
      ['POST', '/v2/teams'],
      ['GET', '/v2/info'],
      ['DELETE', '/v2/suppressions'],
    ] as const) {
      const res = await h.raw(method, path, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: key, name: 'Via body' }),
      });
      t.equal(res.status, 401, `${method} ${path}`);
      t.equal(res.body.errors.code, 'admin_key_in_body', `${method} ${path}`);
    }
    const before = await h.request('GET', '/v2/teams', { key });
    t.same(before.body.data.teams, [], 'no team was created through a body key');
  });

  t.test('an admin key in the body is refused even beside a valid Authorization header', async (t) => {
    const { key } = await h.account();
    const res = await h.raw('GET', '/v2/info', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    t.equal(res.status, 401);
    t.equal(res.body.errors.code, 'admin_key_in_body');
  });

  t.test('an admin key in the query string is not a fallback for the header', async (t) => {
    const { key } = await h.account();
    for (const name of ['api_key', 'key', 'token', 'access_token']) {
      const res = await h.request('GET', `/v2/info?${name}=${encodeURIComponent(key)}`);
      t.equal(res.status, 401, name);
      t.equal(res.body.errors.code, 'missing_api_key', name);
    }
  });

  t.test('keys are stored only as their SHA-256 hash: the database files never hold a key value', async (t) => {
    const { id, key } = await h.account();
    const sending = await sendingKey(key);
    const record = await h.rt.store.keys.findByHash(createHash('sha256').update(key).digest('hex'));
    t.ok(record, 'the admin key is found by its SHA-256 hash');
    t.equal(record?.kind, 'admin');
    const sendingRecord = await h.rt.store.keys.findByHash(createHash('sha256').update(sending.value).digest('hex'));
    t.equal(sendingRecord?.id, sending.id, 'the sending key is found by its SHA-256 hash');
    const records = [...(await h.rt.store.keys.listAdmin(id)), ...(await h.rt.store.keys.listSending(id, { page: 1, perPage: 100 })).rows];
    t.equal(records.length, 2, 'both keys are stored');
    const dump = JSON.stringify(records);
    t.notOk(dump.includes(key), 'no stored key field holds the admin key');
    t.notOk(dump.includes(sending.value), 'no stored key field holds the sending key');
    // The raw bytes too (main file and write-ahead log), whatever table a value might have slipped into.
    const files = readdirSync(h.dataDir).filter((f) => f.startsWith('tern.db'));
    t.ok(files.length > 0);
    for (const file of files) {
      const bytes = readFileSync(join(h.dataDir, file)).toString('latin1');
      t.notOk(bytes.includes(key.slice(11)), `${file} does not hold the admin key`);
      t.notOk(bytes.includes(sending.value.slice(5)), `${file} does not hold the sending key`);
    }
  });

  t.test('a revoked sending key stops resolving at once in the revoking process', async (t) => {
    const { key } = await h.account();
    const sending = await sendingKey(key);
    t.equal((await h.rt.keyCache.resolve(sending.value))?.id, sending.id, 'resolves (and is cached) before');
    const del = await h.request('DELETE', `/v2/api-keys/${sending.id}`, { key });
    t.equal(del.status, 200);
    t.equal(await h.rt.keyCache.resolve(sending.value), undefined, 'no longer resolves');
  });

  t.test('another process’s key cache drops a revoked key within a second through Redis pub/sub', async (t) => {
    const other = new KeyCache(h.rt.store.keys, 30_000);
    await other.listen(h.rt.redis, h.rt.log);
    t.teardown(() => other.close());
    const { key } = await h.account();
    const sending = await sendingKey(key);
    t.equal((await other.resolve(sending.value))?.id, sending.id, 'the other cache holds the key');
    const del = await h.request('DELETE', `/v2/api-keys/${sending.id}`, { key });
    t.equal(del.status, 200);
    const deadline = Date.now() + 1000;
    let resolved = await other.resolve(sending.value);
    while (resolved && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      resolved = await other.resolve(sending.value);
    }
    t.equal(resolved, undefined, 'dropped within a second');
  });

  t.test('without a revocation message the other cache would still serve the key (the cache is really in use)', async (t) => {
    const other = new KeyCache(h.rt.store.keys, 30_000);
    await other.listen(h.rt.redis, h.rt.log);
    t.teardown(() => other.close());
    const { key } = await h.account();
    const sending = await sendingKey(key);
    t.ok(await other.resolve(sending.value));
    // Revoked in the database only, with no message published.
    t.ok(await h.rt.store.keys.revoke(sending.id, 'sending'));
    await new Promise((r) => setTimeout(r, 200));
    t.ok(await other.resolve(sending.value), 'still served from the cache until a message or the TTL');
  });

  t.test('a revoked admin key is refused at once', async (t) => {
    const { id } = await h.account();
    const key = await h.adminKey(id, ['teams:read']);
    t.equal((await h.request('GET', '/v2/info', { key })).status, 200);
    const record = await h.rt.store.keys.findByHash(createHash('sha256').update(key).digest('hex'));
    const hash = await h.rt.store.keys.revoke(record!.id, 'admin');
    await h.rt.keyCache.revoked(h.rt.redis, [hash!], h.rt.log);
    const res = await h.request('GET', '/v2/info', { key });
    t.equal(res.status, 401);
    t.equal(res.body.errors.code, 'invalid_api_key');
  });

  t.end();
});

/** The specification's scope table: each endpoint and the scopes it needs. */
const SCOPE_TABLE: ReadonlyArray<{ method: string; path: string; needs: Scope[]; body?: unknown; query?: string }> = [
  { method: 'GET', path: '/v2/domains', needs: ['domains:read'] },
  { method: 'GET', path: '/v2/domains/{id}', needs: ['domains:read'] },
  { method: 'POST', path: '/v2/domains', needs: ['domains:write'], body: { name: 'localhost' } },
  { method: 'DELETE', path: '/v2/domains/{id}', needs: ['domains:write'] },
  { method: 'GET', path: '/v2/emails', needs: ['emails:read'] },
  { method: 'GET', path: '/v2/emails/{message_id}', needs: ['emails:read'] },
  { method: 'GET', path: '/v2/suppressions', needs: ['suppressions:read'] },
  { method: 'DELETE', path: '/v2/suppressions', needs: ['suppressions:write'], query: '?email=nobody%40example.com' },
  { method: 'GET', path: '/v2/webhooks', needs: ['webhooks:read'] },
  { method: 'POST', path: '/v2/webhooks', needs: ['webhooks:write'], body: { url: 'https://hooks.example.com/x', events: ['bounced'] } },
  { method: 'PUT', path: '/v2/webhooks/{id}', needs: ['webhooks:write'], body: { status: 'inactive' } },
  { method: 'DELETE', path: '/v2/webhooks/{id}', needs: ['webhooks:write'] },
  { method: 'GET', path: '/v2/api-keys', needs: ['api_keys:read'] },
  { method: 'POST', path: '/v2/api-keys', needs: ['api_keys:write', 'emails:send'], body: { name: 'k' } },
  { method: 'DELETE', path: '/v2/api-keys/{id}', needs: ['api_keys:write'] },
  { method: 'GET', path: '/v2/teams', needs: ['teams:read'] },
  { method: 'POST', path: '/v2/teams', needs: ['teams:write'], body: { name: 'Scoped team' } },
  { method: 'PUT', path: '/v2/teams/{id}', needs: ['teams:write'], body: { name: 'Renamed' } },
];

/** The :write scope that includes `s`, when there is one (emails:read has none: emails:send is not a :write). */
const writeOf = (s: Scope): Scope | null => SCOPES.find((w) => s.endsWith(':read') && w === s.replace(':read', ':write')) ?? null;

/** A key on a fresh account holding exactly `scopes`. */
async function keyWith(scopes: Scope[]): Promise<string> {
  const { id } = await h.account({ scopes: [] });
  return h.adminKey(id, scopes);
}

t.test('scopes', async (t) => {
  t.test('the scope table covers every route of the admin interface except GET /v2/info', async (t) => {
    const documented = new Set(SCOPE_TABLE.map((e) => `${e.method} ${e.path}`));
    for (const route of adminRoutes) {
      if (route.path === '/v2/info') continue;
      t.ok(documented.has(`${route.method} ${route.path}`), `${route.method} ${route.path} is in the table`);
      const entry = SCOPE_TABLE.find((e) => e.method === route.method && e.path === route.path);
      if (entry) t.same([...route.scopes].sort(), [...entry.needs].sort(), `${route.method} ${route.path} declares the specification's scopes`);
    }
  });

  for (const entry of SCOPE_TABLE) {
    const label = `${entry.method} ${entry.path}`;
    t.test(`${label} answers 403 insufficient_scope naming ${entry.needs.join(' and ')} to a key holding every other scope`, async (t) => {
      for (const needed of entry.needs) {
        const others = SCOPES.filter((s) => s !== needed && s !== writeOf(needed));
        const key = await keyWith(others);
        const res = await h.request(entry.method, concrete(entry.path) + (entry.query ?? ''), { key, body: entry.body });
        t.equal(res.status, 403, `without ${needed}`);
        t.equal(res.body.errors.code, 'insufficient_scope');
        t.equal(res.body.errors.required_scope, needed);
      }
    });

    t.test(`${label} is allowed with exactly ${entry.needs.join(' and ')}`, async (t) => {
      const key = await keyWith(entry.needs);
      const res = await h.request(entry.method, concrete(entry.path) + (entry.query ?? ''), { key, body: entry.body });
      t.not(res.status, 403, `${res.status} ${res.text}`);
      t.not(res.status, 401);
    });

    const reads = entry.needs.filter((s) => writeOf(s));
    if (reads.length) {
      t.test(`${label} is allowed with the matching :write scope instead of the :read one`, async (t) => {
        const key = await keyWith(entry.needs.map((s) => writeOf(s) ?? s));
        const res = await h.request(entry.method, concrete(entry.path) + (entry.query ?? ''), { key, body: entry.body });
        t.not(res.status, 403, `${res.status} ${res.text}`);
      });
    }
  }

  t.test('a :read scope never grants the :write endpoints', async (t) => {
    const key = await keyWith(SCOPES.filter((s) => s.endsWith(':read')));
    for (const entry of SCOPE_TABLE.filter((e) => e.method !== 'GET')) {
      const res = await h.request(entry.method, concrete(entry.path) + (entry.query ?? ''), { key, body: entry.body });
      t.equal(res.status, 403, `${entry.method} ${entry.path}`);
      t.match(res.body.errors.required_scope, /:write$|^emails:send$/);
    }
  });

  t.test('POST /v2/api-keys with api_keys:write alone is refused and names emails:send', async (t) => {
    const key = await keyWith(['api_keys:write']);
    const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'k' } });
    t.equal(res.status, 403);
    t.equal(res.body.errors.code, 'insufficient_scope');
    t.equal(res.body.errors.required_scope, 'emails:send');
  });

  t.test('POST /v2/api-keys with emails:send alone is refused and names api_keys:write', async (t) => {
    const key = await keyWith(['emails:send']);
    const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'k' } });
    t.equal(res.status, 403);
    t.equal(res.body.errors.required_scope, 'api_keys:write');
  });

  t.test('POST /v2/api-keys with api_keys:write and emails:send creates a key', async (t) => {
    const key = await keyWith(['api_keys:write', 'emails:send']);
    const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'k' } });
    t.equal(res.status, 201);
  });

  t.test('DELETE /v2/api-keys/{id} needs only api_keys:write', async (t) => {
    const { id, key: full } = await h.account();
    const sending = await sendingKey(full);
    const key = await h.adminKey(id, ['api_keys:write']);
    const res = await h.request('DELETE', `/v2/api-keys/${sending.id}`, { key });
    t.equal(res.status, 200);
    t.same(res.body, { deleted: true });
  });

  t.test('an admin key sends (POST /v2/emails and /v2/emails/batch) only with emails:send', async (t) => {
    const without = await keyWith(SCOPES.filter((s) => s !== 'emails:send'));
    const withSend = await keyWith(['emails:send']);
    const body = { from: { email: 'a@unverified.example.com' }, to: [{ email: 'b@example.net' }], subject: 'Hi', text: 'Hi' };
    for (const [path, payload] of [
      ['/v2/emails', body],
      ['/v2/emails/batch', [body]],
    ] as const) {
      const refused = await h.request('POST', path, { key: without, body: payload });
      t.equal(refused.status, 403, `${path} without emails:send`);
      const allowed = await h.request('POST', path, { key: withSend, body: payload });
      t.not(allowed.status, 403, `${path} with emails:send: ${allowed.status}`);
      t.not(allowed.status, 401);
    }
  });

  t.test('GET /v2/info needs no scope and lists domains only with domains:read or domains:write', async (t) => {
    const { id, key: full } = await h.account();
    const added = await h.request('POST', '/v2/domains', { key: full, body: { name: 'info-scope.example.com' } });
    t.equal(added.status, 201);
    const none = await h.request('GET', '/v2/info', { key: await h.adminKey(id, []) });
    t.equal(none.status, 200);
    t.equal(none.body.domains, undefined, 'no domains without domains:read');
    t.same(none.body.key.scopes, []);
    for (const scope of ['domains:read', 'domains:write'] as const) {
      const res = await h.request('GET', '/v2/info', { key: await h.adminKey(id, [scope]) });
      t.equal(res.status, 200);
      t.same(
        res.body.domains.map((d: { domain_name: string }) => d.domain_name),
        ['info-scope.example.com'],
        `domains listed with ${scope}`,
      );
    }
  });

  t.test('emails:send does not include emails:read', async (t) => {
    const key = await keyWith(['emails:send']);
    const res = await h.request('GET', '/v2/emails', { key });
    t.equal(res.status, 403);
    t.equal(res.body.errors.required_scope, 'emails:read');
  });

  t.test('a key with no scope at all is refused on every endpoint but GET /v2/info', async (t) => {
    const key = await keyWith([]);
    for (const entry of SCOPE_TABLE) {
      const res = await h.request(entry.method, concrete(entry.path) + (entry.query ?? ''), { key, body: entry.body });
      t.equal(res.status, 403, `${entry.method} ${entry.path}`);
      t.equal(res.body.errors.required_scope, entry.needs[0]);
    }
    t.equal((await h.request('GET', '/v2/info', { key })).status, 200);
  });

  t.end();
});

t.test('X-Account-Id', async (t) => {
  t.test('every authenticated response echoes the team acted on, errors included', async (t) => {
    const { id, key } = await h.account();
    const team = await createTeam(key, 'Echo team');
    const narrow = await h.adminKey(id, ['domains:read']);
    const cases: Array<[string, string, { key: string; teamId?: number; body?: unknown }, number, number]> = [
      ['GET', '/v2/info', { key }, 200, id],
      ['GET', '/v2/info', { key, teamId: team }, 200, team],
      ['GET', '/v2/domains', { key, teamId: team }, 200, team],
      ['GET', '/v2/api-keys', { key }, 200, id],
      ['GET', '/v2/webhooks', { key, teamId: team }, 200, team],
      ['GET', '/v2/suppressions', { key, teamId: team }, 200, team],
      ['GET', '/v2/domains/nope', { key, teamId: team }, 404, team],
      ['POST', '/v2/domains', { key, teamId: team, body: { name: 5 } }, 422, team],
      ['GET', '/v2/webhooks', { key: narrow, teamId: team }, 403, team],
      ['PUT', `/v2/teams/${team}`, { key, body: { name: 'Echo renamed' } }, 200, team],
    ];
    for (const [method, path, options, status, echoed] of cases) {
      const res = await h.request(method, path, options);
      t.equal(res.status, status, `${method} ${path} status`);
      t.equal(res.headers.get('x-account-id'), String(echoed), `${method} ${path} as ${options.teamId ?? 'own account'}`);
    }
  });

  t.test('a root account’s key reaches each of its child teams', async (t) => {
    const { key } = await h.account();
    const a = await createTeam(key, 'Child A');
    const b = await createTeam(key, 'Child B');
    for (const team of [a, b]) {
      const res = await h.request('GET', '/v2/info', { key, teamId: team });
      t.equal(res.status, 200);
      t.equal(res.body.account.id, team);
      t.equal(res.body.key.acting_on, team);
    }
  });

  t.test('a resource created through X-Account-Id belongs to that team only', async (t) => {
    const { key } = await h.account();
    const team = await createTeam(key, 'Owner of key');
    const sending = await sendingKey(key, team);
    const onTeam = await h.request('GET', '/v2/api-keys', { key, teamId: team });
    t.same(
      onTeam.body.data.map((k: { id: number }) => k.id),
      [sending.id],
    );
    const onRoot = await h.request('GET', '/v2/api-keys', { key });
    t.same(onRoot.body.data, []);
    const wrongTeam = await h.request('DELETE', `/v2/api-keys/${sending.id}`, { key });
    t.equal(wrongTeam.status, 404, 'the parent does not see the child’s key without X-Account-Id');
  });

  t.test('a child team’s key reaches only its own team', async (t) => {
    const { id: root, key } = await h.account();
    const own = await createTeam(key, 'Own team');
    const sibling = await createTeam(key, 'Sibling team');
    const childKey = await h.adminKey(own, [...SCOPES]);
    const self = await h.request('GET', '/v2/info', { key: childKey });
    t.equal(self.status, 200);
    t.equal(self.body.account.id, own);
    t.equal(self.headers.get('x-account-id'), String(own));
    t.equal((await h.request('GET', '/v2/info', { key: childKey, teamId: own })).status, 200);
    for (const target of [sibling, root]) {
      const res = await h.request('GET', '/v2/domains', { key: childKey, teamId: target });
      t.equal(res.status, 404, `team ${target}`);
      t.equal(res.body.errors.code, 'not_found');
    }
  });

  t.test('another account’s team, or a team that does not exist, answers 404 alike', async (t) => {
    const { key } = await h.account();
    const { key: otherKey } = await h.account();
    const foreign = await createTeam(otherKey, 'Foreign team');
    const a = await h.request('GET', '/v2/domains', { key, teamId: foreign });
    const b = await h.request('GET', '/v2/domains', { key, teamId: 999_999 });
    t.equal(a.status, 404);
    t.equal(b.status, 404);
    t.same(a.body, b.body, 'indistinguishable');
  });

  t.test('another root account’s id answers 404', async (t) => {
    const { key } = await h.account();
    const { id: other } = await h.account();
    const res = await h.request('GET', '/v2/info', { key, teamId: other });
    t.equal(res.status, 404);
  });

  t.test('a non-numeric X-Account-Id answers 422', async (t) => {
    const { key } = await h.account();
    for (const value of ['abc', '12a', '-3', '1.5', '0x10']) {
      const res = await h.request('GET', '/v2/info', { key, teamId: value });
      t.equal(res.status, 422, value);
      t.equal(res.body.errors.code, 'validation_failed');
      t.equal(res.body.errors.field, 'X-Account-Id');
    }
  });

  t.test('GET /v2/teams always describes the owning account whatever X-Account-Id says', async (t) => {
    const { id, key } = await h.account();
    const team = await createTeam(key, 'Described child');
    const { key: otherKey } = await h.account();
    const foreign = await createTeam(otherKey, 'Not mine');
    for (const header of [undefined, team, foreign, 999_999]) {
      const res = await h.request('GET', '/v2/teams', { key, teamId: header });
      t.equal(res.status, 200, `X-Account-Id ${header}`);
      t.equal(res.body.data.account.id, id);
      t.equal(res.headers.get('x-account-id'), String(id), 'echoes the owner');
      t.same(
        res.body.data.teams.map((x: { id: number }) => x.id),
        [team],
      );
    }
  });

  t.end();
});
