// MX routing against a real DNS server on loopback: order, implicit MX, null MX, failures, caching.
import t from 'tap';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { createResolver } from '../shared/dns.js';
import { MxResolver, type MxRoute } from '../mta/delivery/mx.js';
import { startDnsServer, type TestRecord } from './helpers/dns-server.js';
import { freePort } from './helpers/redis.js';

const dns = await startDnsServer();
t.teardown(() => dns.close());
const resolver = createResolver([dns.address]);

/** A resolver with its own cache and a clock the test moves. */
function fresh(options: { maxCacheEntries?: number } = {}) {
  const clock = { ms: 1_000_000 };
  const mx = new MxResolver(resolver, { ...options, now: () => clock.ms });
  return { mx, advance: (seconds: number) => (clock.ms += seconds * 1000) };
}

const mxRecord = (preference: number, exchange: string): TestRecord => ({ type: 'MX', data: { preference, exchange } });
const a = (ip: string): TestRecord => ({ type: 'A', data: ip });
const aaaa = (ip: string): TestRecord => ({ type: 'AAAA', data: ip });
const queriesFor = (name: string, type?: string) => dns.queries.filter((q) => q.name === name && (!type || q.type === type)).length;

function hostsOf(route: MxRoute) {
  if (route.kind !== 'hosts') throw new Error(`expected hosts, got ${JSON.stringify(route)}`);
  return route.hosts;
}

t.test('MX hosts come in preference order, each with its IPv4 then its IPv6 addresses', async (t) => {
  dns.set('order.test', [mxRecord(30, 'mx3.order.test'), mxRecord(10, 'mx1.order.test'), mxRecord(20, 'mx2.order.test')]);
  dns.set('mx1.order.test', [aaaa('::1'), a('127.0.0.11'), a('127.0.0.12')]);
  dns.set('mx2.order.test', [a('127.0.0.2')]);
  dns.set('mx3.order.test', [aaaa('fd00::3')]);
  const hosts = hostsOf(await fresh().mx.route('order.test'));
  t.same(hosts, [
    { exchange: 'mx1.order.test', preference: 10, addresses: ['127.0.0.11', '127.0.0.12', '::1'] },
    { exchange: 'mx2.order.test', preference: 20, addresses: ['127.0.0.2'] },
    { exchange: 'mx3.order.test', preference: 30, addresses: ['fd00::3'] },
  ]);
});

t.test('MX hosts of equal preference are shuffled, after every lower preference', async (t) => {
  dns.set('equal.test', [mxRecord(10, 'a.equal.test'), mxRecord(10, 'b.equal.test'), mxRecord(5, 'first.equal.test')]);
  for (const host of ['a', 'b', 'first']) dns.set(`${host}.equal.test`, [a('127.0.0.1')]);
  const { mx } = fresh();
  const orders = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const names = hostsOf(await mx.route('equal.test')).map((h) => h.exchange);
    t.equal(names[0], 'first.equal.test');
    orders.add(names.slice(1).join(' '));
  }
  t.same([...orders].sort(), ['a.equal.test b.equal.test', 'b.equal.test a.equal.test'], 'both orders seen');
  t.equal(queriesFor('equal.test', 'MX'), 1, 'shuffled from the cached answer');
});

t.test('a domain without MX records is delivered to its own A and AAAA addresses (implicit MX)', async (t) => {
  dns.set('implicit.test', [a('127.0.0.7'), aaaa('::7')]);
  const route = await fresh().mx.route('implicit.test');
  t.same(route, { kind: 'hosts', hosts: [{ exchange: 'implicit.test', preference: 0, addresses: ['127.0.0.7', '::7'] }] });
});

t.test('a null MX means the domain accepts no mail', async (t) => {
  dns.set('nullmx.test', [mxRecord(0, '.'), a('127.0.0.1')]);
  t.same(await fresh().mx.route('nullmx.test'), { kind: 'null-mx' });
});

t.test('a domain that does not exist has no route, permanently', async (t) => {
  const route = await fresh().mx.route('nowhere.test');
  t.match(route, { kind: 'no-route', temporary: false, reason: /NXDOMAIN/ });
});

t.test('a domain with neither MX nor address records has no route, permanently', async (t) => {
  dns.set('bare.test', [{ type: 'TXT', data: 'v=spf1 -all' }]);
  t.match(await fresh().mx.route('bare.test'), { kind: 'no-route', temporary: false, reason: /no MX or address/ });
});

t.test('a SERVFAIL is a temporary failure, and is not cached', async (t) => {
  dns.fail('broken.test');
  const { mx } = fresh();
  t.match(await mx.route('broken.test'), { kind: 'no-route', temporary: true, reason: /ESERVFAIL/ });
  dns.set('broken.test', [mxRecord(10, 'mx.broken.test')]);
  dns.set('mx.broken.test', [a('127.0.0.9')]);
  t.same(
    hostsOf(await mx.route('broken.test')).map((h) => h.addresses),
    [['127.0.0.9']],
    'asked again once DNS recovered',
  );
});

t.test('an unreachable DNS server is a temporary failure', async (t) => {
  const nobody = new MxResolver(createResolver([`127.0.0.1:${await freePort()}`]));
  t.match(await nobody.route('order.test'), { kind: 'no-route', temporary: true });
});

t.test('a DNS server that does not answer in time is a temporary failure', async (t) => {
  const silent = createSocket('udp4'); // takes queries, never answers
  await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => silent.close());
  const impatient = new Resolver({ timeout: 100, tries: 1 });
  impatient.setServers([`127.0.0.1:${silent.address().port}`]);
  t.match(await new MxResolver(impatient).route('order.test'), { kind: 'no-route', temporary: true, reason: /ETIMEOUT/ });
});

t.test('an MX host that resolves to nothing is skipped', async (t) => {
  dns.set('skip.test', [mxRecord(10, 'gone.skip.test'), mxRecord(20, 'noaddr.skip.test'), mxRecord(30, 'ok.skip.test')]);
  dns.set('noaddr.skip.test', [{ type: 'TXT', data: 'nothing here' }]);
  dns.set('ok.skip.test', [a('127.0.0.30')]);
  t.same(
    hostsOf(await fresh().mx.route('skip.test')).map((h) => h.exchange),
    ['ok.skip.test'],
  );
});

t.test('when no MX host resolves, the route fails: permanently for NXDOMAIN hosts, temporarily for SERVFAIL', async (t) => {
  dns.set('dead.test', [mxRecord(10, 'gone.dead.test')]);
  t.match(await fresh().mx.route('dead.test'), { kind: 'no-route', temporary: false, reason: /no MX host/ });
  dns.set('flaky.test', [mxRecord(10, 'gone.flaky.test'), mxRecord(20, 'down.flaky.test')]);
  dns.fail('down.flaky.test');
  t.match(await fresh().mx.route('flaky.test'), { kind: 'no-route', temporary: true });
});

t.test('a second lookup within the TTL is answered from the cache without a DNS query', async (t) => {
  dns.set('cached.test', [mxRecord(10, 'mx.cached.test')]);
  dns.set('mx.cached.test', [a('127.0.0.40')]);
  const { mx } = fresh();
  const first = await mx.route('cached.test');
  const before = dns.queries.length;
  t.same(await mx.route('cached.test'), first);
  t.same(await mx.route('CACHED.test.'), first, 'case and trailing dot do not miss the cache');
  t.equal(dns.queries.length, before, 'no query');
});

t.test('negative answers are cached too, for at most 60 seconds', async (t) => {
  const { mx, advance } = fresh();
  await mx.route('later.test');
  const before = queriesFor('later.test');
  dns.set('later.test', [a('127.0.0.50')]);
  t.match(await mx.route('later.test'), { kind: 'no-route' }, 'still the cached NXDOMAIN');
  t.equal(queriesFor('later.test'), before);
  advance(61);
  t.same(hostsOf(await mx.route('later.test'))[0]!.addresses, ['127.0.0.50'], 'asked again after 60 s');
});

t.test('cached answers expire: addresses after their TTL, MX records after 300 seconds', async (t) => {
  dns.set('expiry.test', [mxRecord(10, 'mx.expiry.test')]);
  dns.set('mx.expiry.test', [a('127.0.0.60')]);
  const { mx, advance } = fresh();
  await mx.route('expiry.test');
  dns.set('mx.expiry.test', [a('127.0.0.61')]);
  dns.set('expiry.test', [mxRecord(10, 'mx2.expiry.test')]);
  dns.set('mx2.expiry.test', [a('127.0.0.62')]);
  advance(59);
  t.same(hostsOf(await mx.route('expiry.test'))[0]!.addresses, ['127.0.0.60'], 'within the 60 s TTL');
  advance(2);
  t.same(hostsOf(await mx.route('expiry.test'))[0], { exchange: 'mx.expiry.test', preference: 10, addresses: ['127.0.0.61'] }, 'addresses refreshed, MX still cached');
  advance(240);
  t.equal(hostsOf(await mx.route('expiry.test'))[0]!.exchange, 'mx2.expiry.test', 'MX refreshed after 300 s');
  t.equal(queriesFor('expiry.test', 'MX'), 2);
});

t.test('concurrent lookups for one domain share a single query', async (t) => {
  dns.set('busy.test', [mxRecord(10, 'mx.busy.test')]);
  dns.set('mx.busy.test', [a('127.0.0.70')]);
  const { mx } = fresh();
  const routes = await Promise.all(Array.from({ length: 20 }, () => mx.route('busy.test')));
  t.equal(new Set(routes.map((r) => JSON.stringify(r))).size, 1);
  t.equal(queriesFor('busy.test', 'MX'), 1);
  t.equal(queriesFor('mx.busy.test', 'A'), 1);
});

t.test('the cache holds at most maxCacheEntries answers per record type', async (t) => {
  for (const name of ['one', 'two', 'three']) dns.set(`${name}.lru.test`, [a('127.0.0.80')]);
  const { mx } = fresh({ maxCacheEntries: 2 });
  await mx.route('one.lru.test');
  await mx.route('two.lru.test');
  await mx.route('three.lru.test');
  const before = queriesFor('one.lru.test', 'MX');
  await mx.route('one.lru.test');
  t.equal(queriesFor('one.lru.test', 'MX'), before + 1, 'the oldest entry was evicted');
});

t.test('domain names are normalised: internationalised names are looked up as A-labels; invalid names have no route', async (t) => {
  dns.set('xn--bcher-kva.test', [a('127.0.0.90')]);
  t.same(hostsOf(await fresh().mx.route('Bücher.test'))[0]!.addresses, ['127.0.0.90']);
  t.match(await fresh().mx.route('not a domain'), { kind: 'no-route', temporary: false });
  t.match(await fresh().mx.route('[127.0.0.1]'), { kind: 'no-route', temporary: false });
});
