// A team's Cloudflare connection, through the real `cloudflare` client against a local HTTP double of the
// Cloudflare API whose records a loopback DNS server serves: connecting (the token checked first, stored
// sealed), status, publishing a domain's records idempotently, refusals, and a draft domain verified by the
// product's own automatic check once its records are published.
import t from 'tap';
import { Writable } from 'node:stream';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { startCloudflareDouble } from './helpers/cloudflare-double.js';
import { DnsConnections, type DnsOutcome } from '../shared/core/dns-connection.js';
import { DomainManagement } from '../shared/core/domains.js';
import { dnsProvidersFrom } from '../api/dns-providers/index.js';
import { DomainVerifier } from '../mta/verification/verify-domains.js';
import { createResolver } from '../shared/dns.js';
import type { Team } from '../shared/domain/team.js';

const logLines: string[] = [];
const logDestination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});

const dns = await startDnsServer();
const cloudflare = await startCloudflareDouble(dns);
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600', TERNMAIL_LOG_LEVEL: 'info' },
  overrides: { dnsProviders: { cloudflare: { baseUrl: cloudflare.baseUrl, timeoutS: 5, retries: 0 } } },
  logDestination,
});
t.teardown(async () => {
  await h.close();
  await cloudflare.close();
  await dns.close();
});

const connections = new DnsConnections({ ...h.rt, providers: dnsProvidersFrom(h.config) });
const domains = new DomainManagement(h.rt);
const verifier = new DomainVerifier(h.rt, createResolver([dns.address]));
const log = h.rt.log;

let counter = 0;
const fresh = (base: string) => `${base}-${++counter}-${process.pid}.net`;
/** A Cloudflare-looking API token (40 characters). */
const newToken = (tag: string) => `cf${tag}`.padEnd(36, 'x') + String(1000 + ++counter).slice(-4);

async function team(): Promise<Team> {
  const { id } = await h.account();
  return (await h.rt.store.teams.get(id))!;
}

async function draft(owner: Team, name: string) {
  const added = await domains.add(owner, name, log);
  if (!added.ok) throw new Error(`adding ${name}: ${JSON.stringify(added.refusal)}`);
  return added.value;
}

function value<T>(outcome: DnsOutcome<T>): T {
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.refusal)}`);
  return outcome.value;
}

/** A team connected to Cloudflare with a fresh active token that sees `zones` (all when absent). */
async function connectedTeam(zones?: string[], canEdit = true): Promise<{ owner: Team; token: string }> {
  const owner = await team();
  const token = newToken('ok');
  cloudflare.token(token, { status: 'active', ...(zones ? { zones } : {}), canEdit });
  value(await connections.connect(owner, 'cloudflare', token, log));
  return { owner, token };
}

const results = (published: { records: Array<{ role: string; result: string }> }) => Object.fromEntries(published.records.map((r) => [r.role, r.result]));

t.test('a token Cloudflare does not know is refused with its message, and nothing is stored', async (t) => {
  const owner = await team();
  const refused = await connections.connect(owner, 'cloudflare', newToken('bad'), log);
  t.match(refused, { ok: false, refusal: { kind: 'provider_refused', provider: 'cloudflare', status: 401, message: /Invalid API Token/ } });
  t.same(await connections.status(owner, 'cloudflare'), { provider: 'cloudflare', connected: false });
  t.equal(await h.rt.store.dnsConnections.get(owner.id, 'cloudflare'), undefined, 'no row was written');
});

t.test('a disabled or expired token is refused, and nothing is stored', async (t) => {
  const owner = await team();
  for (const status of ['disabled', 'expired'] as const) {
    const token = newToken(status.slice(0, 3));
    cloudflare.token(token, { status });
    const refused = await connections.connect(owner, 'cloudflare', token, log);
    t.match(refused, { ok: false, refusal: { kind: 'provider_refused', message: new RegExp(`it is ${status}`) } });
  }
  t.equal(await h.rt.store.dnsConnections.get(owner.id, 'cloudflare'), undefined);
});

t.test('a token that cannot be one (empty, with spaces or control characters) is refused before Cloudflare is asked', async (t) => {
  const owner = await team();
  const before = cloudflare.requests.length;
  for (const bad of ['', 'short', ` ${newToken('sp')}`, `${newToken('nl')}\n`, 'x'.repeat(513)]) {
    t.match(await connections.connect(owner, 'cloudflare', bad, log), { ok: false, refusal: { kind: 'invalid_field', field: 'api_token' } }, JSON.stringify(bad));
  }
  t.equal(cloudflare.requests.length, before, 'no request reached the provider');
});

t.test('connecting stores the token sealed; the status shows since when, its last 4 characters and the zones, never the token', async (t) => {
  const zone = fresh('status');
  cloudflare.zone(zone);
  const hidden = fresh('hidden');
  cloudflare.zone(hidden);
  const owner = await team();
  const token = newToken('st');
  cloudflare.token(token, { status: 'active', zones: [zone] });
  const connected = value(await connections.connect(owner, 'cloudflare', token, log));
  t.match(connected, { provider: 'cloudflare', connected: true, tokenLast4: token.slice(-4), zones: [zone], zonesProblem: null });
  t.notOk(JSON.stringify(connected).includes(token), 'the token is not in the answer');
  const stored = (await h.rt.store.dnsConnections.get(owner.id, 'cloudflare'))!;
  t.notOk(stored.tokenEnc.includes(token), 'stored sealed');
  t.equal(h.rt.secrets.open(stored.tokenEnc), token, 'and opens back to the token');
  t.notOk(
    logLines.some((l) => l.includes(token)),
    'no log line carries the token',
  );
  t.ok(logLines.some((l) => l.includes('DNS provider connected') && l.includes(`"team":${owner.id}`)));

  // A new token replaces the old one; the connection keeps the time it was first made.
  const second = newToken('nd');
  cloudflare.token(second, { status: 'active' });
  const replaced = value(await connections.connect(owner, 'cloudflare', second, log));
  t.match(replaced, { connected: true, tokenLast4: second.slice(-4), connectedSince: connected.connected ? connected.connectedSince : '' });
  t.ok(replaced.connected && replaced.zones!.includes(hidden), 'the zones the new token sees');

  // Another team sees nothing of it.
  t.same(await connections.status(await team(), 'cloudflare'), { provider: 'cloudflare', connected: false });

  value(await connections.disconnect(owner, 'cloudflare', log));
  t.same(await connections.status(owner, 'cloudflare'), { provider: 'cloudflare', connected: false });
  t.match(await connections.disconnect(owner, 'cloudflare', log), { ok: false, refusal: { kind: 'not_connected' } }, 'disconnecting twice is refused');
});

t.test('the status says when the zones cannot be listed (a token revoked since connecting)', async (t) => {
  const { owner, token } = await connectedTeam();
  cloudflare.token(token, { status: 'disabled' });
  const status = await connections.status(owner, 'cloudflare');
  t.match(status, { connected: true, tokenLast4: token.slice(-4), zones: null, zonesProblem: /Cloudflare refused listing the zones: Unauthorized/ });
});

t.test('publishing takes a draft domain to verified: the records are created in its zone, served by DNS, and found by the automatic check', async (t) => {
  const name = fresh('publish');
  cloudflare.zone(name);
  const { owner } = await connectedTeam([name]);
  const domain = await draft(owner, name);
  t.equal(domain.verificationStatus, 'draft');

  const published = value(await connections.publish(owner, 'cloudflare', domain.id, log));
  t.match(published, { provider: 'cloudflare', domain: { id: domain.id, name }, zone: name });
  t.same(results(published), { dkim: 'created', return_path_mx: 'created', spf: 'created' });
  const shown = domains.dnsRecords(domain);
  t.same(
    published.records.map((r) => [r.type, r.name, r.content]),
    [
      ['TXT', `${shown.dkim.name}.${name}`, shown.dkim.content],
      ['MX', `send.${name}`, 'mx.tern.test'],
      ['TXT', `send.${name}`, shown.spf[1]!.content],
    ],
    'exactly the records the product asks for (dnsRecordsFor)',
  );
  t.match(cloudflare.recordsAt(`send.${name}`), [{ type: 'MX', content: 'mx.tern.test', priority: 10 }, { type: 'TXT' }]);

  const round = await verifier.round();
  t.match(round, { ran: true });
  const after = (await h.rt.store.domains.get(domain.id, owner.id))!;
  t.equal(after.verificationStatus, 'verified', `verified by the product's check: ${after.autoVerifyReason}`);
});

t.test('publishing twice changes nothing the second time', async (t) => {
  const name = fresh('twice');
  cloudflare.zone(name);
  const { owner } = await connectedTeam();
  const domain = await draft(owner, name);
  value(await connections.publish(owner, 'cloudflare', domain.id, log));
  const writes = cloudflare.writes();
  const again = value(await connections.publish(owner, 'cloudflare', domain.id, log));
  t.same(results(again), { dkim: 'unchanged', return_path_mx: 'unchanged', spf: 'unchanged' });
  t.equal(cloudflare.writes(), writes, 'no write reached Cloudflare');
  t.equal(cloudflare.recordsAt(`send.${name}`).length, 2, 'no duplicate');
  t.equal(cloudflare.recordsAt(`tern._domainkey.${name}`).length, 1);
});

t.test('records already there with other values are updated in place, never duplicated; records not Tern’s are left alone', async (t) => {
  const name = fresh('stale');
  cloudflare.zone(name);
  cloudflare.seed(name, { type: 'TXT', name: `tern._domainkey.${name}`, content: 'v=DKIM1; k=rsa; p=MIIBoldkey' });
  cloudflare.seed(name, { type: 'MX', name: `send.${name}`, content: 'mx.old-provider.example', priority: 10 });
  cloudflare.seed(name, { type: 'TXT', name: `send.${name}`, content: 'v=spf1 include:old-provider.example ~all' });
  cloudflare.seed(name, { type: 'TXT', name: `send.${name}`, content: 'v=spf1 -all' });
  cloudflare.seed(name, { type: 'TXT', name: `send.${name}`, content: 'google-site-verification=abc123' });
  const { owner } = await connectedTeam();
  const domain = await draft(owner, name);

  const published = value(await connections.publish(owner, 'cloudflare', domain.id, log));
  t.same(results(published), { dkim: 'updated', return_path_mx: 'updated', spf: 'updated' });
  const dkim = cloudflare.recordsAt(`tern._domainkey.${name}`);
  t.same(
    dkim.map((r) => r.content),
    [domains.dnsRecords(domain).dkim.content],
    'one DKIM record, now with the domain’s key',
  );
  const send = cloudflare.recordsAt(`send.${name}`);
  t.same(
    send.filter((r) => r.type === 'MX').map((r) => r.content),
    ['mx.tern.test'],
    'the MX repointed, not added',
  );
  t.same(
    send.filter((r) => r.type === 'TXT').map((r) => r.content),
    ['v=spf1 include:mx.tern.test ~all', 'google-site-verification=abc123'],
    'one SPF record (two would break SPF); the unrelated TXT record kept',
  );
  await verifier.round();
  t.equal((await h.rt.store.domains.get(domain.id, owner.id))!.verificationStatus, 'verified');
  t.same(results(value(await connections.publish(owner, 'cloudflare', domain.id, log))), { dkim: 'unchanged', return_path_mx: 'unchanged', spf: 'unchanged' });
});

t.test('records that already do the job as the owner wrote them (quoted, split, other mechanisms) are left unchanged', async (t) => {
  const name = fresh('variants');
  cloudflare.zone(name);
  const { owner } = await connectedTeam();
  const domain = await draft(owner, name);
  const p = /p=(.*)$/.exec(domains.dnsRecords(domain).dkim.content)![1]!;
  cloudflare.seed(name, { type: 'TXT', name: `tern._domainkey.${name}`, content: `"k=rsa;v=DKIM1;p=${p.slice(0, 200)}" "${p.slice(200)}"` });
  cloudflare.seed(name, { type: 'MX', name: `send.${name}`, content: 'MX.tern.test', priority: 20 });
  cloudflare.seed(name, { type: 'TXT', name: `send.${name}`, content: '"v=spf1 a mx include:mx.tern.test -all"' });
  const writes = cloudflare.writes();
  const published = value(await connections.publish(owner, 'cloudflare', domain.id, log));
  t.same(results(published), { dkim: 'unchanged', return_path_mx: 'unchanged', spf: 'unchanged' });
  t.equal(cloudflare.writes(), writes);
  await verifier.round();
  t.equal((await h.rt.store.domains.get(domain.id, owner.id))!.verificationStatus, 'verified', 'and the check agrees they do');
});

t.test('a subdomain is published in the zone of its parent', async (t) => {
  const parent = fresh('parent');
  cloudflare.zone(parent);
  const { owner } = await connectedTeam([parent]);
  const domain = await draft(owner, `mail.${parent}`);
  const published = value(await connections.publish(owner, 'cloudflare', domain.id, log));
  t.equal(published.zone, parent);
  t.equal(cloudflare.recordsAt(`send.mail.${parent}`).length, 2);
});

t.test('refusals: not connected, domain not found (or another team’s), zone not found, a read-only token', async (t) => {
  const name = fresh('refusals');
  cloudflare.zone(name);
  const stranger = await team();
  const strangersDomain = await draft(stranger, name);
  t.match(await connections.publish(stranger, 'cloudflare', strangersDomain.id, log), { ok: false, refusal: { kind: 'not_connected', provider: 'cloudflare' } });

  const { owner } = await connectedTeam();
  t.match(await connections.publish(owner, 'cloudflare', 'dom_nonexistent', log), { ok: false, refusal: { kind: 'not_found', what: 'domain' } });
  t.match(
    await connections.publish(owner, 'cloudflare', strangersDomain.id, log),
    { ok: false, refusal: { kind: 'not_found', what: 'domain' } },
    'another team’s domain',
  );

  const elsewhere = await draft(owner, fresh('nozone'));
  t.match(await connections.publish(owner, 'cloudflare', elsewhere.id, log), {
    ok: false,
    refusal: { kind: 'zone_not_found', domain: elsewhere.name, message: /No Cloudflare zone visible to this token holds/ },
  });

  const readOnly = fresh('readonly');
  cloudflare.zone(readOnly);
  const viewer = await connectedTeam(undefined, false);
  const domain = await draft(viewer.owner, readOnly);
  t.match(await connections.publish(viewer.owner, 'cloudflare', domain.id, log), {
    ok: false,
    refusal: { kind: 'provider_refused', status: 403, message: /Cloudflare refused the TXT record at tern\._domainkey\..*: Authentication error/ },
  });
  t.equal(cloudflare.recordsAt(`tern._domainkey.${readOnly}`).length, 0, 'nothing written');
});

t.test('a provider that cannot be reached is a refusal of its own, not an exception', async (t) => {
  const unreachable = new DnsConnections({
    ...h.rt,
    providers: dnsProvidersFrom({ dnsProviders: { cloudflare: { baseUrl: 'http://127.0.0.1:9/client/v4', timeoutS: 2, retries: 0 } } }),
  });
  const owner = await team();
  t.match(await unreachable.connect(owner, 'cloudflare', newToken('down'), log), { ok: false, refusal: { kind: 'provider_unavailable', provider: 'cloudflare' } });
  t.equal(await h.rt.store.dnsConnections.get(owner.id, 'cloudflare'), undefined);
});
