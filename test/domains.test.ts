// /v2/domains over real HTTP: creation rules, DKIM keys, DNS records, listing, paging, deletion, teams,
// scopes and rate limits. A loopback DNS server is configured so that any lookup the API made would show.
import t from 'tap';
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { openRuntime } from '../shared/runtime/runtime.js';
import { createLogger } from '../shared/log.js';

const dns = await startDnsServer();
const h = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await h.close();
  await dns.close();
});

const SPEC_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let counter = 0;
/** A fresh registrable name, so tests never collide on the service-wide uniqueness of names. */
const freshName = (base = 'example') => `${base}-${++counter}-${process.pid}.org`;

async function addDomain(hh: Harness, key: string, name: string, teamId?: number) {
  const res = await hh.request('POST', '/v2/domains', { key, body: { name }, teamId });
  if (res.status !== 201) throw new Error(`adding ${name}: ${res.status} ${res.text}`);
  return res.body.data as { id: string; domain_name: string; verification_status: string; created_at: string };
}

async function createTeam(hh: Harness, key: string, name = 'Client team') {
  const res = await hh.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`creating team: ${res.status} ${res.text}`);
  return res.body.data as { id: number; name: string; status: string };
}

/** Fixed one-minute windows: start a rate-limit test with enough of the window left to finish in it. */
async function awaitFreshWindow(minLeftS = 15): Promise<void> {
  const intoWindowMs = Date.now() % 60_000;
  if (60_000 - intoWindowMs < minLeftS * 1000) await new Promise((r) => setTimeout(r, 60_000 - intoWindowMs + 200));
}

t.test('adding a domain answers 201 with an opaque id, the name, draft status and a creation date in the specification’s format', async (t) => {
  const { key } = await h.account();
  const name = freshName();
  const res = await h.request('POST', '/v2/domains', { key, body: { name } });
  t.equal(res.status, 201);
  const data = res.body.data;
  t.type(data.id, 'string');
  t.ok(data.id.length >= 8, 'the id is an opaque string, not a counter');
  t.notMatch(data.id, /^\d+$/, 'the id is not a plain integer');
  t.equal(data.domain_name, name);
  t.equal(data.verification_status, 'draft');
  t.match(data.created_at, SPEC_DATE);
  t.same(Object.keys(data).sort(), ['created_at', 'domain_name', 'id', 'verification_status']);
  const { id: second } = await addDomain(h, key, freshName());
  t.not(second, data.id, 'ids differ between domains');
});

t.test('a domain name is normalised: upper case is lowered and a trailing dot dropped', async (t) => {
  const { key } = await h.account();
  const base = freshName('Normal');
  const res = await h.request('POST', '/v2/domains', { key, body: { name: `${base.toUpperCase()}.` } });
  t.equal(res.status, 201);
  t.equal(res.body.data.domain_name, base.toLowerCase());
  const again = await h.request('POST', '/v2/domains', { key, body: { name: base.toLowerCase() } });
  t.equal(again.status, 409, 'the normalised name is the one that exists');
});

t.test('adding a domain that already exists answers 409, also when another account owns it', async (t) => {
  const a = await h.account();
  const b = await h.account();
  const name = freshName('taken');
  await addDomain(h, a.key, name);
  const same = await h.request('POST', '/v2/domains', { key: a.key, body: { name } });
  t.equal(same.status, 409);
  t.equal(same.body.status_code, 409);
  t.type(same.body.message, 'string');
  t.type(same.body.errors.code, 'string');
  t.notOk('error_type' in same.body, 'admin errors carry no error_type');
  const other = await h.request('POST', '/v2/domains', { key: b.key, body: { name } });
  t.equal(other.status, 409);
  const list = await h.request('GET', '/v2/domains', { key: b.key });
  t.equal(list.body.total, 0, 'the refused account got no domain');
});

t.test('two concurrent additions of the same name create it once and refuse the other with 409', async (t) => {
  const { key } = await h.account();
  const name = freshName('race');
  const replies = await Promise.all([1, 2, 3].map(() => h.request('POST', '/v2/domains', { key, body: { name } })));
  t.same(replies.map((r) => r.status).sort(), [201, 409, 409]);
  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.total, 1);
});

t.test('names that are not public domain names answer 422 in the admin error shape', async (t) => {
  const { key } = await h.account();
  const invalid: Array<[string, unknown]> = [
    ['localhost', 'localhost'],
    ['a single label', 'foo'],
    ['an unknown top-level domain', 'example.invalidtld'],
    ['an IPv4 literal', '192.0.2.10'],
    ['an IPv6 literal', '2001:db8::1'],
    ['a bracketed IPv6 literal', '[::1]'],
    ['a bare multi-label public suffix', 'co.uk'],
    ['a bare top-level domain', 'com'],
    ['an empty name', ''],
    ['a blank name', '   '],
    ['an underscore', 'bad_name.org'],
    ['a space', 'bad name.org'],
    ['a dollar sign', 'bad$name.org'],
    ['an empty label', 'bad..org'],
    ['a label starting with a hyphen', '-bad.org'],
    ['a label longer than 63 characters', `${'a'.repeat(64)}.org`],
    ['a number instead of a string', 42],
    ['null', null],
    ['an array', ['example.org']],
  ];
  for (const [what, name] of invalid) {
    const res = await h.request('POST', '/v2/domains', { key, body: { name } });
    t.equal(res.status, 422, `${what} is refused`);
    t.equal(res.body?.status_code, 422, `${what}: status_code in the body`);
    t.type(res.body?.message, 'string', `${what}: a message`);
    t.type(res.body?.errors?.code, 'string', `${what}: errors.code`);
  }
  const missing = await h.request('POST', '/v2/domains', { key, body: {} });
  t.equal(missing.status, 422, 'a body without name is refused');
  const extra = await h.request('POST', '/v2/domains', { key, body: { name: freshName(), region: 'eu' } });
  t.equal(extra.status, 422, 'an unknown field is refused');
  const malformed = await h.request('POST', '/v2/domains', { key, rawBody: '{"name": ' });
  t.equal(malformed.status, 400, 'malformed JSON is a client error');
  t.equal(malformed.body.errors.code, 'invalid_json');
  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.total, 0, 'nothing was created');
});

t.test('a name with a path, port, user info, scheme, whitespace or hidden characters answers 422 invalid_domain naming why, and nothing is created', async (t) => {
  const { key } = await h.account();
  const cases: Array<[string, (name: string) => string, RegExp]> = [
    ['a path', (n) => `${n}/path`, /path/],
    ['a query', (n) => `${n}?x=1`, /query/],
    ['a fragment', (n) => `${n}#top`, /fragment/],
    ['a backslash', (n) => `${n}\\x`, /path/],
    ['a port', (n) => `${n}:25`, /port/],
    ['user info', (n) => `user@${n}`, /user/],
    ['a scheme', (n) => `https://${n}`, /scheme/],
    ['a scheme and a path', (n) => `http://${n}/`, /scheme/],
    ['a trailing space', (n) => `${n} `, /whitespace/],
    ['a leading space', (n) => ` ${n}`, /whitespace/],
    ['surrounding new lines', (n) => `\n${n}\n`, /whitespace/],
    ['a tab inside', (n) => n.replace('-', '\t-'), /whitespace/],
    ['CR LF and a header', (n) => `${n}\r\nX-Injected: y`, /whitespace/],
    ['a no-break space', (n) => `${n}\u00a0`, /whitespace/],
    ['an ideographic space', (n) => `${n}\u3000`, /whitespace/],
    ['a NUL', (n) => `${n}\u0000`, /control/],
    ['a DEL', (n) => n.replace('-', '\u007f-'), /control/],
    ['a soft hyphen', (n) => n.replace('-', '\u00ad-'), /invisible/],
    ['a zero-width space', (n) => n.replace('-', '\u200b-'), /invisible/],
    ['a byte-order mark', (n) => `\ufeff${n}`, /invisible/],
    ['percent-encoding', (n) => n.replace('e', '%65'), /percent/],
  ];
  const names: string[] = [];
  for (const [what, spell, reason] of cases) {
    const name = freshName('rewrite');
    names.push(name);
    const res = await h.request('POST', '/v2/domains', { key, body: { name: spell(name) } });
    t.equal(res.status, 422, `${what} is refused, not rewritten`);
    t.equal(res.body?.errors?.code, 'invalid_domain', `${what}: invalid_domain`);
    t.match(res.body?.message, reason, `${what}: the message says why`);
  }
  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.total, 0, 'no domain was created under any of these spellings');
  for (const name of names.slice(0, 3)) {
    const plain = await h.request('POST', '/v2/domains', { key, body: { name } });
    t.equal(plain.status, 201, `${name} itself is still free and valid`);
  }
});

t.test('a name too long for its DKIM record name to fit in DNS answers 422; the trailing dot does not count', async (t) => {
  const { key } = await h.account();
  /** A name under .org of exactly `length` characters, in labels of at most 63. */
  const nameOfLength = (length: number) => {
    let rest = `${++counter}x`.padEnd(length - '.org'.length, 'x');
    const labels: string[] = [];
    while (rest.length > 63) {
      labels.push(rest.slice(0, 62));
      rest = rest.slice(63); // the 63rd character becomes the dot
    }
    return [...labels, rest].join('.') + '.org';
  };
  const longest = nameOfLength(253 - 'tern._domainkey.'.length);
  t.equal(longest.length, 237);
  const ok = await h.request('POST', '/v2/domains', { key, body: { name: `${longest.toUpperCase()}.` } });
  t.equal(ok.status, 201, 'tern._domainkey.<name> is exactly 253 characters');
  t.equal(ok.body.data.domain_name, longest);
  const tooLong = await h.request('POST', '/v2/domains', { key, body: { name: nameOfLength(238) } });
  t.equal(tooLong.status, 422, 'one more character and the DKIM record could never be published');
  t.equal(tooLong.body.errors.code, 'invalid_domain');
  t.match(tooLong.body.message, /DKIM/);
});

t.test('an internationalised name is accepted and stored in its ASCII form', async (t) => {
  const { key } = await h.account();
  const res = await h.request('POST', '/v2/domains', { key, body: { name: `bücher-${++counter}.de` } });
  t.equal(res.status, 201);
  t.match(res.body.data.domain_name, /^xn--.*\.de$/);
});

t.test('a subdomain needs credits: 402 with an empty balance, 201 with credits', async (t) => {
  const poor = await h.account({ credits: 0 });
  const sub = `mail.${freshName('sub')}`;
  const refused = await h.request('POST', '/v2/domains', { key: poor.key, body: { name: sub } });
  t.equal(refused.status, 402);
  t.equal(refused.body.status_code, 402);
  t.type(refused.body.errors.code, 'string');
  const apex = await h.request('POST', '/v2/domains', { key: poor.key, body: { name: freshName('apex') } });
  t.equal(apex.status, 201, 'a registrable domain needs no credits');
  const multi = await h.request('POST', '/v2/domains', { key: poor.key, body: { name: `news.${freshName('uk').replace(/\.org$/, '.co.uk')}` } });
  t.equal(multi.status, 402, 'a subdomain under a multi-label suffix is a subdomain too');

  const rich = await h.account({ credits: 10 });
  const accepted = await h.request('POST', '/v2/domains', { key: rich.key, body: { name: sub } });
  t.equal(accepted.status, 201);
  t.equal(accepted.body.data.domain_name, sub);
});

t.test('a child team with no balance of its own adds a subdomain on the parent’s pooled credits', async (t) => {
  const parent = await h.account({ credits: 5 });
  const team = await createTeam(h, parent.key);
  const res = await h.request('POST', '/v2/domains', { key: parent.key, teamId: team.id, body: { name: `mail.${freshName('pool')}` } });
  t.equal(res.status, 201);

  const broke = await h.account({ credits: 0 });
  const broketeam = await createTeam(h, broke.key);
  const refused = await h.request('POST', '/v2/domains', { key: broke.key, teamId: broketeam.id, body: { name: `mail.${freshName('pool')}` } });
  t.equal(refused.status, 402);
});

t.test('the DKIM private key is stored encrypted and matches the RSA-2048 public key shown in DNS', async (t) => {
  const { key } = await h.account();
  const { id } = await addDomain(h, key, freshName('dkim'));
  const stored = await h.rt.store.domains.get(id);
  t.ok(stored, 'the domain is stored');
  t.notMatch(stored!.dkimPrivateKeyEnc, /PRIVATE KEY/, 'no PEM in what the store holds');
  // The key's own base64 (its DER) must not be in what the store holds. A check for the DER prefix "MII" alone
  // failed about once in a hundred runs: random ciphertext of this length contains those three letters by chance.
  const der = h.rt.secrets.open(stored!.dkimPrivateKeyEnc).replace(/-----[^-]+-----|\s/g, '');
  t.notOk(stored!.dkimPrivateKeyEnc.includes(der.slice(0, 64)), 'no base64 DER key in what the store holds either');
  for (const file of ['tern.db', 'tern.db-wal'].map((f) => join(h.dataDir, f)).filter((f) => existsSync(f))) {
    t.notOk(readFileSync(file).includes('PRIVATE KEY'), `${file} holds no PEM private key`);
  }

  const detail = await h.request('GET', `/v2/domains/${id}`, { key });
  const content: string = detail.body.data.dns_records.dkim.content;
  t.match(content, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
  const p = /p=([A-Za-z0-9+/=]+)$/.exec(content)![1]!;
  const publicKey = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' });
  t.equal(publicKey.asymmetricKeyType, 'rsa');
  t.equal(publicKey.asymmetricKeyDetails?.modulusLength, 2048);

  // The sealed private key opens with the service's master key and belongs to that public key.
  const pem = h.rt.secrets.open(stored!.dkimPrivateKeyEnc);
  t.match(pem, /BEGIN PRIVATE KEY/);
  const derived = createPublicKey(pem).export({ format: 'der', type: 'spki' }).toString('base64');
  t.equal(derived, p);

  const { id: other } = await addDomain(h, key, freshName('dkim'));
  const otherDetail = await h.request('GET', `/v2/domains/${other}`, { key });
  t.not(otherDetail.body.data.dns_records.dkim.content, content, 'each domain has its own key pair');
});

t.test('the domain list has the envelope and the specification’s item fields, with the team’s first domain as default', async (t) => {
  const { id: accountId, key } = await h.account();
  const first = await addDomain(h, key, freshName('list'));
  const second = await addDomain(h, key, freshName('list'));
  const res = await h.request('GET', '/v2/domains', { key });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ['account_id', 'data', 'page', 'per_page', 'total']);
  t.equal(res.body.total, 2);
  t.equal(res.body.page, 1);
  t.equal(res.body.per_page, 25);
  t.equal(res.body.account_id, accountId);
  t.equal(res.headers.get('x-account-id'), String(accountId));
  const [a, b] = res.body.data;
  t.same(Object.keys(a).sort(), [
    'backend_region',
    'domain_name',
    'id',
    'is_default',
    'total_bounced',
    'total_complained',
    'total_sent',
    'updated_at',
    'verification_status',
  ]);
  t.equal(a.id, first.id);
  t.equal(a.domain_name, first.domain_name);
  t.equal(a.verification_status, 'draft');
  t.equal(a.is_default, true, 'the first domain of the team is the default');
  t.equal(b.id, second.id);
  t.equal(b.is_default, false, 'later domains are not');
  t.equal(a.backend_region, 'eu');
  t.equal(a.total_sent, 0);
  t.equal(a.total_bounced, 0);
  t.equal(a.total_complained, 0);
  t.match(a.updated_at, ISO);
  t.ok(!Number.isNaN(Date.parse(a.updated_at)));
});

t.test('the domain list pages with page and per_page', async (t) => {
  const { key } = await h.account();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await addDomain(h, key, freshName('page'))).id);
  const p1 = await h.request('GET', '/v2/domains?page=1&per_page=2', { key });
  t.equal(p1.status, 200);
  t.equal(p1.body.total, 3);
  t.equal(p1.body.page, 1);
  t.equal(p1.body.per_page, 2);
  t.same(
    p1.body.data.map((d: { id: string }) => d.id),
    ids.slice(0, 2),
  );
  const p2 = await h.request('GET', '/v2/domains?page=2&per_page=2', { key });
  t.same(
    p2.body.data.map((d: { id: string }) => d.id),
    ids.slice(2),
  );
  t.equal(p2.body.page, 2);
  const p3 = await h.request('GET', '/v2/domains?page=3&per_page=2', { key });
  t.equal(p3.status, 200);
  t.same(p3.body.data, []);
  t.equal(p3.body.total, 3);
  const max = await h.request('GET', '/v2/domains?per_page=100', { key });
  t.equal(max.status, 200);
  t.equal(max.body.per_page, 100);
  const deepest = await h.request('GET', '/v2/domains?page=100&per_page=100', { key });
  t.equal(deepest.status, 200, 'exactly 10,000 records deep is allowed');
});

t.test('paging outside the limits answers 422', async (t) => {
  const { key } = await h.account();
  const cases = ['per_page=0', 'per_page=101', 'page=0', 'page=-1', 'per_page=abc', 'page=1.5', 'page=101&per_page=100', 'page=10001', 'page=401'];
  for (const query of cases) {
    const res = await h.request('GET', `/v2/domains?${query}`, { key });
    t.equal(res.status, 422, `${query} is refused`);
    t.equal(res.body?.status_code, 422, `${query}: admin error body`);
    t.type(res.body?.errors?.code, 'string', `${query}: errors.code`);
  }
});

t.test('a domain’s detail shows its DNS records, no DMARC policy yet and an active automatic check', async (t) => {
  const { key } = await h.account();
  const created = await addDomain(h, key, freshName('detail'));
  const res = await h.request('GET', `/v2/domains/${created.id}`, { key });
  t.equal(res.status, 200);
  const d = res.body.data;
  t.equal(d.id, created.id);
  t.equal(d.domain_name, created.domain_name);
  t.equal(d.verification_status, 'draft');
  t.equal(d.created_at, created.created_at);
  t.equal(d.dmarc_policy, null);
  t.same(d.auto_verification.active, true);
  t.type(d.auto_verification.reason, 'string');

  const dkim = d.dns_records.dkim;
  t.same(Object.keys(dkim).sort(), ['TTL', 'content', 'name', 'priority', 'type']);
  t.equal(dkim.type, 'TXT');
  t.equal(dkim.name, 'tern._domainkey');
  t.equal(dkim.TTL, 'auto');
  t.equal(dkim.priority, '');

  const spf: Array<Record<string, string>> = d.dns_records.spf;
  t.ok(Array.isArray(spf));
  const mx = spf.find((r) => r.type === 'MX');
  const txt = spf.find((r) => r.type === 'TXT');
  t.ok(mx, 'an MX record');
  t.ok(txt, 'a TXT record');
  t.same(mx, { type: 'MX', name: 'send', content: 'mx.tern.test', TTL: 'auto', priority: '10' });
  t.equal(txt!.name, 'send');
  t.match(txt!.content, /^v=spf1 /);
  t.match(txt!.content, /(^|\s)include:mx\.tern\.test(\s|$)/);
  t.equal(txt!.TTL, 'auto');
  t.equal(txt!.priority, '');
});

t.test('reading domains never performs a DNS lookup', async (t) => {
  const { key } = await h.account();
  const { id } = await addDomain(h, key, freshName('nolookup'));
  const before = dns.queries.length;
  for (let i = 0; i < 3; i++) {
    t.equal((await h.request('GET', `/v2/domains/${id}`, { key })).status, 200);
    t.equal((await h.request('GET', '/v2/domains', { key })).status, 200);
    t.equal((await h.request('GET', '/v2/info', { key })).status, 200);
  }
  // Give a stray asynchronous lookup time to reach the server before counting.
  await new Promise((r) => setTimeout(r, 300));
  t.equal(dns.queries.length, before, 'the DNS server saw no query');
  t.equal(dns.queries.length, 0, 'nothing in this API process has queried DNS at all');
});

t.test('another team’s domain answers 404, never 403, on read and delete', async (t) => {
  const owner = await h.account();
  const stranger = await h.account();
  const { id } = await addDomain(h, owner.key, freshName('private'));
  const read = await h.request('GET', `/v2/domains/${id}`, { key: stranger.key });
  t.equal(read.status, 404);
  t.equal(read.body.status_code, 404);
  const del = await h.request('DELETE', `/v2/domains/${id}`, { key: stranger.key });
  t.equal(del.status, 404);
  const unknown = await h.request('GET', '/v2/domains/doesnotexist', { key: stranger.key });
  t.equal(unknown.status, 404);
  t.same(read.body.errors, unknown.body.errors, 'an existing foreign id looks exactly like an unknown one');
  t.equal((await h.request('GET', `/v2/domains/${id}`, { key: owner.key })).status, 200, 'the owner still has it');
});

t.test('deleting a domain answers deleted true with a warning, then the domain is gone', async (t) => {
  const { key } = await h.account();
  const { id, domain_name } = await addDomain(h, key, freshName('gone'));
  const res = await h.request('DELETE', `/v2/domains/${id}`, { key });
  t.equal(res.status, 200);
  t.equal(res.body.deleted, true);
  t.type(res.body.warning, 'string');
  t.ok(res.body.warning.length > 0);
  t.match(res.body.warning, domain_name, 'the warning names the domain whose records to remove');
  t.equal((await h.request('GET', `/v2/domains/${id}`, { key })).status, 404);
  t.equal((await h.request('DELETE', `/v2/domains/${id}`, { key })).status, 404, 'a second delete finds nothing');
  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.total, 0);
});

t.test('a deleted domain name can be added again, as a new domain', async (t) => {
  const a = await h.account();
  const b = await h.account();
  const name = freshName('again');
  const first = await addDomain(h, a.key, name);
  await h.request('DELETE', `/v2/domains/${first.id}`, { key: a.key });
  const readd = await h.request('POST', '/v2/domains', { key: b.key, body: { name } });
  t.equal(readd.status, 201, 'another account may take the freed name');
  t.not(readd.body.data.id, first.id);
  t.equal(readd.body.data.verification_status, 'draft');
  await h.request('DELETE', `/v2/domains/${readd.body.data.id}`, { key: b.key });
  t.equal((await h.request('POST', '/v2/domains', { key: a.key, body: { name } })).status, 201, 'and the first owner again');
});

t.test('deleting the default domain makes the oldest remaining one the default', async (t) => {
  const { key } = await h.account();
  const first = await addDomain(h, key, freshName('dflt'));
  const second = await addDomain(h, key, freshName('dflt'));
  const third = await addDomain(h, key, freshName('dflt'));
  await h.request('DELETE', `/v2/domains/${first.id}`, { key });
  const list = await h.request('GET', '/v2/domains', { key });
  const byId = new Map(list.body.data.map((d: { id: string; is_default: boolean }) => [d.id, d.is_default]));
  t.equal(byId.get(second.id), true);
  t.equal(byId.get(third.id), false);
  t.equal(list.body.data.filter((d: { is_default: boolean }) => d.is_default).length, 1, 'exactly one default');

  await h.request('DELETE', `/v2/domains/${third.id}`, { key });
  const after = await h.request('GET', '/v2/domains', { key });
  t.equal(after.body.data[0].is_default, true, 'deleting a non-default leaves the default alone');
});

t.test('a sending key limited to a removed domain is revoked with it, in every process', async (t) => {
  const { key } = await h.account();
  const kept = await addDomain(h, key, freshName('keep'));
  const removed = await addDomain(h, key, freshName('drop'));
  const limited = await h.request('POST', '/v2/api-keys', { key, body: { name: 'limited', domain: removed.id } });
  t.equal(limited.status, 201);
  const other = await h.request('POST', '/v2/api-keys', { key, body: { name: 'other', domain: kept.id } });
  const everywhere = await h.request('POST', '/v2/api-keys', { key, body: { name: 'all domains' } });
  const listed = await h.request('GET', '/v2/api-keys', { key });
  t.same(
    listed.body.data.map((k: { title: string; domain: string | null }) => [k.title, k.domain]),
    [
      ['limited', removed.domain_name],
      ['other', kept.domain_name],
      ['all domains', null],
    ],
  );

  // A second process (as an MTA would be) holds the key in its cache before the domain goes.
  const otherProcess = await openRuntime(h.config, 'other', createLogger('other', 'silent'));
  t.teardown(() => otherProcess.close());
  t.ok(await otherProcess.keyCache.resolve(limited.body.data.api_key), 'the key works before removal');

  t.equal((await h.request('DELETE', `/v2/domains/${removed.id}`, { key })).status, 200);
  const after = await h.request('GET', '/v2/api-keys', { key });
  t.same(
    after.body.data.map((k: { title: string }) => k.title),
    ['other', 'all domains'],
    'the limited key is no longer listed',
  );
  t.equal(after.body.total, 2);

  let stillWorks = true;
  for (let i = 0; i < 50 && stillWorks; i++) {
    stillWorks = (await otherProcess.keyCache.resolve(limited.body.data.api_key)) !== undefined;
    if (stillWorks) await new Promise((r) => setTimeout(r, 100));
  }
  t.notOk(stillWorks, 'the other process stops accepting the key within seconds, not at the cache TTL');
  t.notOk(await h.rt.keyCache.resolve(limited.body.data.api_key), 'the API process refuses it too');
  t.ok(await otherProcess.keyCache.resolve(other.body.data.api_key), 'a key on another domain still works');
  t.ok(await otherProcess.keyCache.resolve(everywhere.body.data.api_key), 'a key valid on every domain still works');
});

t.test('a root key acting on a child team adds domains to that team, and the response echoes X-Account-Id', async (t) => {
  const parent = await h.account();
  const team = await createTeam(h, parent.key);
  const res = await h.request('POST', '/v2/domains', { key: parent.key, teamId: team.id, body: { name: freshName('child') } });
  t.equal(res.status, 201);
  t.equal(res.headers.get('x-account-id'), String(team.id));
  const childList = await h.request('GET', '/v2/domains', { key: parent.key, teamId: team.id });
  t.equal(childList.headers.get('x-account-id'), String(team.id));
  t.equal(childList.body.account_id, team.id);
  t.same(
    childList.body.data.map((d: { id: string }) => d.id),
    [res.body.data.id],
  );
  t.equal(childList.body.data[0].is_default, true, 'the first domain of the child team is its default');

  const parentDomain = await addDomain(h, parent.key, freshName('parent'));
  const parentList = await h.request('GET', '/v2/domains', { key: parent.key });
  t.equal(parentList.headers.get('x-account-id'), String(parent.id));
  t.equal(parentList.body.account_id, parent.id);
  t.same(
    parentList.body.data.map((d: { id: string }) => d.id),
    [parentDomain.id],
    'the child’s domains are not in the parent’s list',
  );
  t.equal(parentList.body.data[0].is_default, true, 'defaults are per team');

  const detail = await h.request('GET', `/v2/domains/${res.body.data.id}`, { key: parent.key, teamId: team.id });
  t.equal(detail.status, 200);
  t.equal(detail.headers.get('x-account-id'), String(team.id));
  t.equal((await h.request('GET', `/v2/domains/${res.body.data.id}`, { key: parent.key })).status, 404, 'not on the parent');
  const del = await h.request('DELETE', `/v2/domains/${res.body.data.id}`, { key: parent.key, teamId: team.id });
  t.equal(del.status, 200);
  t.equal(del.headers.get('x-account-id'), String(team.id));
});

t.test('X-Account-Id naming a team outside the key’s account answers 404', async (t) => {
  const a = await h.account();
  const b = await h.account();
  const bTeam = await createTeam(h, b.key);
  const res = await h.request('POST', '/v2/domains', { key: a.key, teamId: bTeam.id, body: { name: freshName('foreign') } });
  t.equal(res.status, 404);
  t.equal((await h.request('GET', '/v2/domains', { key: a.key, teamId: b.id })).status, 404);
  t.equal((await h.request('GET', '/v2/domains', { key: b.key, teamId: bTeam.id })).status, 200);
});

t.test('a key with domains:read only may read domains but not add or delete them', async (t) => {
  const { id: accountId, key: full } = await h.account();
  const { id } = await addDomain(h, full, freshName('scoped'));
  const reader = await h.adminKey(accountId, ['domains:read']);
  t.equal((await h.request('GET', '/v2/domains', { key: reader })).status, 200);
  t.equal((await h.request('GET', `/v2/domains/${id}`, { key: reader })).status, 200);
  const post = await h.request('POST', '/v2/domains', { key: reader, body: { name: freshName('scoped') } });
  t.equal(post.status, 403);
  t.equal(post.body.status_code, 403);
  t.equal(post.body.errors.code, 'insufficient_scope');
  t.equal(post.body.errors.required_scope, 'domains:write');
  const del = await h.request('DELETE', `/v2/domains/${id}`, { key: reader });
  t.equal(del.status, 403);
  t.equal(del.body.errors.required_scope, 'domains:write');
  t.equal((await h.request('GET', `/v2/domains/${id}`, { key: full })).status, 200, 'the refused delete did nothing');
});

t.test('domains:write implies domains:read, and keys without either are refused with the scope named', async (t) => {
  const { id: accountId } = await h.account();
  const writer = await h.adminKey(accountId, ['domains:write']);
  const created = await h.request('POST', '/v2/domains', { key: writer, body: { name: freshName('writer') } });
  t.equal(created.status, 201);
  t.equal((await h.request('GET', '/v2/domains', { key: writer })).status, 200);
  t.equal((await h.request('GET', `/v2/domains/${created.body.data.id}`, { key: writer })).status, 200);

  const teamsOnly = await h.adminKey(accountId, ['teams:read']);
  const list = await h.request('GET', '/v2/domains', { key: teamsOnly });
  t.equal(list.status, 403);
  t.equal(list.body.errors.code, 'insufficient_scope');
  t.equal(list.body.errors.required_scope, 'domains:read');
  const read = await h.request('GET', `/v2/domains/${created.body.data.id}`, { key: teamsOnly });
  t.equal(read.status, 403);
  t.equal(read.body.errors.required_scope, 'domains:read');
  const post = await h.request('POST', '/v2/domains', { key: teamsOnly, body: { name: freshName('writer') } });
  t.equal(post.status, 403);
  t.equal(post.body.errors.required_scope, 'domains:write');
});

t.test('domain endpoints refuse requests without an admin key with 401', async (t) => {
  const { key } = await h.account();
  const sending = await h.request('POST', '/v2/api-keys', { key, body: { name: 'sender' } });
  const sendingKey: string = sending.body.data.api_key;
  for (const [method, path] of [
    ['GET', '/v2/domains'],
    ['POST', '/v2/domains'],
    ['GET', '/v2/domains/abc'],
    ['DELETE', '/v2/domains/abc'],
  ] as const) {
    const body = method === 'POST' ? { name: freshName('nokey') } : undefined;
    t.equal((await h.request(method, path, { body })).status, 401, `${method} ${path} without a key`);
    t.equal((await h.request(method, path, { key: sendingKey, body })).status, 401, `${method} ${path} with a sending key`);
    t.equal((await h.request(method, path, { key: 'tern_admin_notarealkey0000000000000000000000', body })).status, 401, `${method} ${path} with an unknown key`);
  }
});

t.test('domain creation is limited to 60 per minute per account, counting requests refused by validation', async (t) => {
  await awaitFreshWindow();
  const { id, key } = await h.account();
  const statuses: number[] = [];
  const remaining: string[] = [];
  for (let i = 0; i < 60; i++) {
    const res = await h.request('POST', '/v2/domains', { key, body: { name: 'localhost' } });
    statuses.push(res.status);
    remaining.push(res.headers.get('ratelimit-remaining') ?? '');
  }
  t.same([...new Set(statuses)], [422], 'the first 60 reach validation and are refused there');
  t.equal(remaining[0], '59');
  t.equal(remaining[59], '0');
  const res = await h.request('POST', '/v2/domains', { key, body: { name: freshName('sixtyfirst') } });
  t.equal(res.status, 429, 'the 61st is over the limit, even with a valid name');
  t.equal(res.body.status_code, 429);
  t.type(res.body.errors.code, 'string');
  t.equal(res.headers.get('x-account-id'), String(id), 'a refusal still echoes the team acted on');
  const retryAfter = Number(res.headers.get('retry-after'));
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After is a delay in seconds (${retryAfter})`);
  t.equal(res.headers.get('ratelimit-limit'), '60');
  t.equal(res.headers.get('ratelimit-remaining'), '0');
  const reset = Number(res.headers.get('ratelimit-reset'));
  t.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `RateLimit-Reset is in seconds (${reset})`);
  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.total, 0, 'the refused request created nothing');

  const other = await h.account();
  t.equal((await h.request('POST', '/v2/domains', { key: other.key, body: { name: freshName('otheracct') } })).status, 201, 'other accounts are not affected');
});

t.test('rate limits are counted per account across its teams, in separate buckets for creation and other writes', async (t) => {
  const limited = await startHarness({ overrides: { limits: { domainCreatesPerMinute: 3, writesPerMinute: 4 } } });
  t.teardown(() => limited.close());
  await awaitFreshWindow();
  const parent = await limited.account();
  const team = await createTeam(limited, parent.key); // 1 write
  const first = await addDomain(limited, parent.key, freshName('bucket'));
  t.equal((await limited.request('POST', '/v2/domains', { key: parent.key, teamId: team.id, body: { name: 'foo' } })).status, 422);
  const third = await limited.request('POST', '/v2/domains', { key: parent.key, teamId: team.id, body: { name: freshName('bucket') } });
  t.equal(third.status, 201);
  t.equal(third.headers.get('ratelimit-remaining'), '0');
  const fourth = await limited.request('POST', '/v2/domains', { key: parent.key, body: { name: freshName('bucket') } });
  t.equal(fourth.status, 429, 'creations on the parent and on its team share one counter');
  t.ok(fourth.headers.get('retry-after'));

  // GET /v2/domains/{id} counts in the writes bucket (the team creation above used one of 4).
  for (let i = 0; i < 3; i++) {
    const res = await limited.request('GET', `/v2/domains/${first.id}`, { key: parent.key });
    t.equal(res.status, 200, `detail read ${i + 1} is within the limit`);
    t.equal(res.headers.get('ratelimit-limit'), '4');
  }
  const over = await limited.request('GET', `/v2/domains/${first.id}`, { key: parent.key });
  t.equal(over.status, 429, 'the fifth write-bucket request is refused');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  t.equal(over.headers.get('ratelimit-remaining'), '0');
  t.equal((await limited.request('DELETE', `/v2/domains/${first.id}`, { key: parent.key })).status, 429, 'DELETE shares that bucket');
  t.equal((await limited.request('GET', `/v2/domains/${first.id}`, { key: parent.key })).status, 429);

  const list = await limited.request('GET', '/v2/domains', { key: parent.key });
  t.equal(list.status, 200, 'a list without search is not rate limited');
  t.equal(list.headers.get('ratelimit-limit'), null);
  for (let i = 0; i < 5; i++) t.equal((await limited.request('GET', '/v2/domains', { key: parent.key })).status, 200);

  const other = await limited.account();
  const otherDomain = await addDomain(limited, other.key, freshName('bucket'));
  t.equal((await limited.request('GET', `/v2/domains/${otherDomain.id}`, { key: other.key })).status, 200, 'another account has its own counters');
});
