// Automatic domain verification, end to end: the MTA's verifier runs every second against a real
// loopback DNS server, and a test publishes (or withholds) the records the API shows. No verify
// endpoint exists or is called; progress is followed by polling GET /v2/domains/{id}.
import t from 'tap';
import { createPublicKey } from 'node:crypto';
import { startHarness, type Harness } from './helpers/harness.js';
import { storeSupport } from './helpers/store-support.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startMta } from '../mta/main.js';
import { loadDeliveryRules } from '../shared/policies/index.js';
import { DomainVerifier } from '../mta/verification/verify-domains.js';
import { openRuntime, type Runtime } from '../shared/runtime/runtime.js';
import { createLogger } from '../shared/log.js';
import { createResolver } from '../shared/dns.js';
import { redisKeys } from '../shared/redis-keys.js';

const dns = await startDnsServer();
const h = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '1' } });
const mta = await startMta({ config: h.config, ...loadDeliveryRules() }, h.rt);
t.teardown(async () => {
  await mta.close();
  await h.close();
  await dns.close();
});

interface DnsRecordShown {
  type: 'TXT' | 'MX';
  name: string;
  content: string;
  TTL: string;
  priority: string;
}

interface Detail {
  id: string;
  domain_name: string;
  verification_status: 'draft' | 'verified';
  dmarc_policy: string | null;
  dns_records: { dkim: DnsRecordShown; spf: DnsRecordShown[] };
  auto_verification: { active: boolean; reason: string };
}

let counter = 0;
const freshName = (base: string) => `${base}-${++counter}-${process.pid}.net`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function addDomain(hh: Harness, key: string, name: string): Promise<string> {
  const res = await hh.request('POST', '/v2/domains', { key, body: { name } });
  if (res.status !== 201) throw new Error(`adding ${name}: ${res.status} ${res.text}`);
  return res.body.data.id as string;
}

async function detail(key: string, id: string): Promise<Detail> {
  const res = await h.request('GET', `/v2/domains/${id}`, { key });
  if (res.status !== 200) throw new Error(`reading ${id}: ${res.status} ${res.text}`);
  return res.body.data as Detail;
}

/** Polls the domain until `done` holds; fails with the last state seen after `timeoutMs`. */
async function waitFor(key: string, id: string, done: (d: Detail) => boolean, timeoutMs = 20_000): Promise<Detail> {
  const until = Date.now() + timeoutMs;
  let last = await detail(key, id);
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`timed out; last state: ${JSON.stringify({ ...last, dns_records: undefined })}`);
    await sleep(200);
    last = await detail(key, id);
  }
  return last;
}

const fqdn = (record: DnsRecordShown, domain: string) => `${record.name}.${domain}`;

/** Publishes in the DNS server exactly the records the API shows for the domain. */
function publish(server: TestDnsServer, d: Detail, parts: { dkim?: boolean; spf?: boolean; mx?: boolean } = { dkim: true, spf: true, mx: true }) {
  if (parts.dkim) server.set(fqdn(d.dns_records.dkim, d.domain_name), [{ type: 'TXT', data: d.dns_records.dkim.content }]);
  for (const record of d.dns_records.spf) {
    const wanted = record.type === 'MX' ? parts.mx : parts.spf;
    if (!wanted) continue;
    server.add(
      fqdn(record, d.domain_name),
      record.type === 'MX' ? { type: 'MX', data: { preference: Number(record.priority), exchange: record.content } } : { type: 'TXT', data: record.content },
    );
  }
}

const queriesFor = (server: TestDnsServer, domain: string) => server.queries.filter((q) => q.name.toLowerCase().endsWith(domain)).length;

t.test('a domain becomes verified on its own once its records are published, with its DMARC policy read', async (t) => {
  const { key } = await h.account();
  const id = await addDomain(h, key, freshName('verify'));
  const before = await detail(key, id);
  t.equal(before.verification_status, 'draft');
  t.equal(before.auto_verification.active, true);
  t.equal(before.dmarc_policy, null);

  // Unpublished, the automatic check keeps it a draft and says what it waits for.
  const waiting = await waitFor(key, id, (d) => d.auto_verification.reason !== '');
  t.equal(waiting.verification_status, 'draft');
  t.equal(waiting.auto_verification.active, true);
  t.match(waiting.auto_verification.reason, /DKIM/);

  publish(dns, before);
  dns.set(`_dmarc.${before.domain_name}`, [{ type: 'TXT', data: 'v=DMARC1; p=quarantine' }]);
  const verified = await waitFor(key, id, (d) => d.verification_status === 'verified');
  t.equal(verified.auto_verification.active, false, 'the automatic check no longer covers it');
  t.equal(verified.auto_verification.reason, '');
  t.equal(verified.dmarc_policy, 'quarantine');
  t.same(verified.dns_records, before.dns_records, 'the records shown do not change');

  const list = await h.request('GET', '/v2/domains', { key });
  t.equal(list.body.data[0].verification_status, 'verified', 'the list shows it verified too');

  // A verified domain is not checked again.
  const seen = queriesFor(dns, before.domain_name);
  await sleep(2500);
  t.equal(queriesFor(dns, before.domain_name), seen, 'no further lookups for a verified domain');
});

t.test('a domain with only its DKIM record published stays draft, with a reason naming what is missing', async (t) => {
  const { key } = await h.account();
  const id = await addDomain(h, key, freshName('partial'));
  const shown = await detail(key, id);
  publish(dns, shown, { dkim: true });
  const partial = await waitFor(key, id, (d) => d.auto_verification.reason !== '' && !/DKIM/.test(d.auto_verification.reason));
  t.equal(partial.verification_status, 'draft');
  t.equal(partial.auto_verification.active, true, 'checks go on');
  t.match(partial.auto_verification.reason, /SPF/);
  t.match(partial.auto_verification.reason, /MX/);
  t.match(partial.auto_verification.reason, `send.${shown.domain_name}`);

  publish(dns, shown, { spf: true });
  const spfToo = await waitFor(key, id, (d) => !/SPF/.test(d.auto_verification.reason));
  t.equal(spfToo.verification_status, 'draft', 'the MX record is still missing');
  t.match(spfToo.auto_verification.reason, /MX/);

  publish(dns, shown, { mx: true });
  const done = await waitFor(key, id, (d) => d.verification_status === 'verified');
  t.equal(done.auto_verification.active, false);
  t.equal(done.dmarc_policy, null, 'no DMARC record: no policy');
});

t.test('records published in the usual variations of zone editors still verify the domain', async (t) => {
  const { key } = await h.account();
  const id = await addDomain(h, key, freshName('variants'));
  const shown = await detail(key, id);
  const p = /p=(.*)$/.exec(shown.dns_records.dkim.content)![1]!;
  // DKIM: tags reordered, no spaces, the key split over several strings at arbitrary points.
  dns.set(fqdn(shown.dns_records.dkim, shown.domain_name), [{ type: 'TXT', data: ['k=rsa;v=DKIM1;p=' + p.slice(0, 100), p.slice(100, 300), p.slice(300)] }]);
  // SPF among other TXT records, with other mechanisms and an upper-case include; MX target with a final dot.
  dns.set(`send.${shown.domain_name}`, [
    { type: 'TXT', data: 'google-site-verification=abc123' },
    { type: 'TXT', data: 'v=spf1 a mx +include:MX.TERN.TEST -all' },
    { type: 'MX', data: { preference: 20, exchange: 'backup.example.net' } },
    { type: 'MX', data: { preference: 10, exchange: 'MX.tern.test.' } },
  ]);
  dns.set(`_dmarc.${shown.domain_name}`, [{ type: 'TXT', data: 'v=DMARC1;p=reject;rua=mailto:dmarc@example.net' }]);
  const verified = await waitFor(key, id, (d) => d.verification_status === 'verified');
  t.equal(verified.dmarc_policy, 'reject');
  t.equal(verified.auto_verification.active, false);
});

t.test('two SPF records at the return-path name are not accepted, as SPF treats them as an error', async (t) => {
  const { key } = await h.account();
  const id = await addDomain(h, key, freshName('twospf'));
  const shown = await detail(key, id);
  publish(dns, shown);
  dns.add(`send.${shown.domain_name}`, { type: 'TXT', data: 'v=spf1 include:other.example.net ~all' });
  const checked = await waitFor(key, id, (d) => d.auto_verification.reason !== '' && !/DKIM|MX/.test(d.auto_verification.reason));
  t.equal(checked.verification_status, 'draft');
  t.match(checked.auto_verification.reason, /SPF/);
});

t.test('a DKIM record carrying another key does not verify the domain', async (t) => {
  const { key } = await h.account();
  const id = await addDomain(h, key, freshName('wrongkey'));
  const otherId = await addDomain(h, key, freshName('otherkey'));
  const shown = await detail(key, id);
  const other = await detail(key, otherId);
  t.not(other.dns_records.dkim.content, shown.dns_records.dkim.content);
  dns.set(fqdn(shown.dns_records.dkim, shown.domain_name), [{ type: 'TXT', data: other.dns_records.dkim.content }]);
  publish(dns, shown, { spf: true, mx: true });
  const checked = await waitFor(key, id, (d) => d.auto_verification.reason !== '' && !/SPF|MX/.test(d.auto_verification.reason));
  t.equal(checked.verification_status, 'draft');
  t.match(checked.auto_verification.reason, /DKIM/);
  await sleep(2200);
  t.equal((await detail(key, id)).verification_status, 'draft', 'still draft after further rounds');

  // A truncated key (the right prefix only) is not accepted either.
  const p = /p=(.*)$/.exec(shown.dns_records.dkim.content)![1]!;
  dns.set(fqdn(shown.dns_records.dkim, shown.domain_name), [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${p.slice(0, 200)}` }]);
  await sleep(2200);
  t.equal((await detail(key, id)).verification_status, 'draft');
  t.ok(createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' }), 'the shown key itself is a valid public key');
});

t.test('DNS failures (SERVFAIL) keep the domain a draft and do not stop the verification loop', async (t) => {
  const { key } = await h.account();
  const failingId = await addDomain(h, key, freshName('broken'));
  const failing = await detail(key, failingId);
  const names = [fqdn(failing.dns_records.dkim, failing.domain_name), `send.${failing.domain_name}`, `_dmarc.${failing.domain_name}`];
  for (const name of names) dns.fail(name);
  const seen = dns.queries.length;
  const failed = await waitFor(key, failingId, (d) => d.auto_verification.reason !== '');
  t.ok(
    dns.queries.slice(seen).some((q) => names.includes(q.name.toLowerCase())),
    'the failing names were queried',
  );
  t.equal(failed.verification_status, 'draft');
  t.equal(failed.auto_verification.active, true);
  t.match(failed.auto_verification.reason, /fail/i, 'the reason says the lookup failed rather than that the record is absent');

  // The loop goes on: another domain is verified while the first still fails.
  const healthyId = await addDomain(h, key, freshName('healthy'));
  publish(dns, await detail(key, healthyId));
  t.equal((await waitFor(key, healthyId, (d) => d.verification_status === 'verified')).verification_status, 'verified');
  t.equal((await detail(key, failingId)).verification_status, 'draft');

  // Once the zone answers again, the first one is verified as well.
  for (const name of names) dns.remove(name);
  publish(dns, failing);
  t.equal((await waitFor(key, failingId, (d) => d.verification_status === 'verified')).verification_status, 'verified');
});

t.test('a draft older than 30 days is no longer checked, with a reason, while a younger one still is', async (t) => {
  const { key } = await h.account();
  const oldId = await addDomain(h, key, freshName('old'));
  const youngId = await addDomain(h, key, freshName('young'));
  const old = await detail(key, oldId);
  const young = await detail(key, youngId);
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const support = await storeSupport(t, h.dataDir);
  await support.backdateDomain(oldId, daysAgo(31));
  await support.backdateDomain(youngId, daysAgo(29));

  const expired = await waitFor(key, oldId, (d) => !d.auto_verification.active);
  t.equal(expired.verification_status, 'draft');
  t.match(expired.auto_verification.reason, /30 days/);

  // Publishing its records now changes nothing: it is not looked up any more.
  const seen = queriesFor(dns, old.domain_name);
  publish(dns, old);
  publish(dns, young);
  const youngVerified = await waitFor(key, youngId, (d) => d.verification_status === 'verified');
  t.equal(youngVerified.auto_verification.active, false, 'a 29-day-old draft is still checked and verified');
  await sleep(2200);
  const after = await detail(key, oldId);
  t.equal(after.verification_status, 'draft');
  t.equal(after.auto_verification.active, false);
  t.equal(queriesFor(dns, old.domain_name), seen, 'no lookup was made for the expired draft');
});

t.test('two verifiers sharing Redis never run a round at the same time', async (t) => {
  // A harness without a running MTA, so that only the two verifiers below compete for the lock.
  const quiet = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address } });
  const processes: Runtime[] = [];
  t.teardown(async () => {
    for (const rt of processes) await rt.close();
    await quiet.close();
  });
  // Two MTA processes: each its own SQLite and Redis connections, the same database and Redis.
  for (const name of ['mta-a', 'mta-b']) processes.push(await openRuntime(quiet.config, name, createLogger(name, 'silent')));
  const [a, b] = processes.map((rt) => new DomainVerifier(rt, createResolver(quiet.config.dnsServers))) as [DomainVerifier, DomainVerifier];

  const { key } = await quiet.account();
  const names = [freshName('lock'), freshName('lock')];
  for (const name of names) {
    await addDomain(quiet, key, name);
    dns.delay(`tern._domainkey.${name}`, 150); // each round takes a little while
  }
  t.teardown(() => names.forEach((name) => dns.delay(`tern._domainkey.${name}`, 0)));
  const dkimLookups = () => dns.queries.filter((q) => names.includes(q.name.toLowerCase().replace(/^tern\._domainkey\./, '')) && q.type === 'TXT').length;

  for (let i = 0; i < 4; i++) {
    const before = dkimLookups();
    const rounds = await Promise.all([a.round(), b.round()]);
    t.equal(rounds.filter((r) => r.ran).length, 1, `round ${i + 1}: exactly one verifier ran`);
    t.equal(rounds.find((r) => r.ran)?.checked, 2, `round ${i + 1}: it checked both drafts`);
    t.same(
      rounds.find((r) => !r.ran),
      { ran: false, checked: 0, verified: 0, expired: 0 },
    );
    t.equal(dkimLookups() - before, 2, `round ${i + 1}: each domain was looked up once, not twice`);
  }

  // The lock is released after a round: either verifier alone runs the next one.
  t.equal((await b.round()).ran, true);
  t.equal((await a.round()).ran, true);

  // A lock held by a third process is respected and left in place.
  await quiet.rt.redis.set(redisKeys.verifyLock(), 'someone-else', 'PX', 60_000);
  const before = dkimLookups();
  const blocked = await Promise.all([a.round(), b.round()]);
  t.same(
    blocked.map((r) => r.ran),
    [false, false],
  );
  t.equal(dkimLookups(), before, 'no lookups while another process holds the lock');
  t.equal(await quiet.rt.redis.get(redisKeys.verifyLock()), 'someone-else', 'the other holder’s lock is not removed');
  await quiet.rt.redis.del(redisKeys.verifyLock());
  t.equal((await a.round()).ran, true);
});

t.test('a stopped MTA starts no further verification round, even when stopped during one', async (t) => {
  const own = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '1' } });
  t.teardown(() => own.close());
  const { key } = await own.account();
  const name = freshName('stop');
  await addDomain(own, key, name);
  dns.delay(`tern._domainkey.${name}`, 600);
  t.teardown(() => dns.delay(`tern._domainkey.${name}`, 0));

  const running = await startMta({ config: own.config, ...loadDeliveryRules() }, own.rt);
  const until = Date.now() + 10_000;
  while (queriesFor(dns, name) === 0 && Date.now() < until) await sleep(20);
  t.ok(queriesFor(dns, name) > 0, 'a round is under way');
  await running.close();
  const seen = queriesFor(dns, name);
  await sleep(2500);
  t.equal(queriesFor(dns, name), seen, 'no lookup after the MTA was closed');
});
