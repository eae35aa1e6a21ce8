// The platform's read routes over real HTTP, Redis, SQLite and a loopback DNS server: every team's domains (list,
// ranking by volume, one domain, its DNS check run now under the per-domain limit), every team's message log
// (filters, search, one message by its log_id) and every team's suppressions. Bad filters are refused and change
// nothing; an unknown id is 404; account users get 403 and anonymous callers 401 on every one of them.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import type { NewRecipient } from '../shared/store/message-log.js';
import { finishAlone } from '../shared/queue/finish.js';

const dns = await startDnsServer();
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' },
  overrides: { dkim: { keyBits: 1024 }, verify: { intervalS: 3600, maxDraftAgeDays: 30, lockTtlS: 300, onDemand: { limit: 2, windowS: 60 } } },
});
t.teardown(async () => {
  await h.close();
  await dns.close();
});

const ADMIN = '/api/tern/v2/admin';
const tag = `r${process.pid}`;
const recipient = (email: string): NewRecipient => ({ email, name: '', kind: 'to', domain: email.split('@')[1]!, state: 'queued', reason: '' });

interface AdminDomainItem {
  id: number;
  domain_hash: string;
  domain_name: string;
  tenant_id: number;
}
interface AdminLogItem {
  log_id: number;
  tenant_id: number;
  id: string;
  status: string;
  subject: string;
}

/** A message of a team on a domain, delivered through the queue's own calls to `to` (sent or bounced). */
async function delivered(teamId: number, domainId: string | null, id: string, to: 'sent' | 'bounced'): Promise<void> {
  const queued = await recordMessage(h.rt.store, newMessage({ id, teamId, domainId, recipients: [recipient(`${id}@dest.test`)], cost: 0 }));
  if (queued === 'insufficient_balance') throw new Error('not recorded');
  const [lease] = await h.rt.store.queue.claim(
    queued.map((q) => q.id),
    Date.now(),
    Date.now() + 60_000,
    'admin-reads-test',
  );
  const reply = to === 'sent' ? '250 2.0.0 OK' : '550 5.1.1 no such user';
  await finishAlone(h.rt.store.transaction, [
    { recipientId: lease!.id, leaseToken: lease!.leaseToken, to, reply, mxHost: 'mx.dest.test', ip: null, nextAttemptAt: Date.now() + 600_000, hard: true },
  ]);
}

const account = await h.account({ name: `Reads Acme ${tag}` });
const other = await h.account({ name: `Reads Other ${tag}` });
const domainName = `reads-${tag}.com`;
const created = await h.request<{ data: { id: string } }>('POST', '/v2/domains', { key: account.key, body: { name: domainName } });
const domainHash = created.body.data.id;
await h.request('POST', '/v2/domains', { key: other.key, body: { name: `quiet-${tag}.com` } });
await delivered(account.id, domainHash, `${tag}sent1`, 'sent');
await delivered(account.id, domainHash, `${tag}bounce1`, 'bounced');
await delivered(other.id, null, `${tag}other1`, 'sent');
await h.rt.store.suppressions.add(account.id, { email: `gone.${tag}@dest.test`, status: 'bounced', reason: '550 no such user', messageId: null });
await h.rt.store.suppressions.add(other.id, { email: `angry.${tag}@dest.test`, status: 'complained', reason: 'abuse report', messageId: null });
const operator: SignedIn = await logIn(h, await operatorOn(h));

const asOperator = (path: string) => h.request('GET', `${ADMIN}${path}`, withSession(operator));
const listed = async <T>(path: string): Promise<T[]> => {
  const reply = await asOperator(path);
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
  return reply.body as T[];
};
const domainNumber = async (): Promise<number> => (await listed<AdminDomainItem>(`/domains?tenant_id=${account.id}`))[0]!.id;

t.test("an operator lists every team's domains with their team, filtered by team, status and a part of the name", async (t) => {
  const all = await asOperator('/domains?per_page=100');
  t.equal(all.status, 200, all.text);
  t.ok(Number(all.headers.get('x-wp-total')) >= 2, 'X-WP-Total');
  const mine = (all.body as AdminDomainItem[]).find((d) => d.domain_hash === domainHash);
  t.match(mine, {
    id: Number,
    domain_name: domainName,
    tenant_id: account.id,
    tenant_name: `Reads Acme ${tag}`,
    verification_status: 'draft',
    verified_at: null,
    last_checked_at: null,
    created_at: String,
  });
  t.same(
    (await listed<AdminDomainItem>(`/domains?tenant_id=${other.id}`)).map((d) => d.domain_name),
    [`quiet-${tag}.com`],
  );
  t.same(
    (await listed<AdminDomainItem>(`/domains?search=${encodeURIComponent(`ads-${tag}`)}`)).map((d) => d.domain_hash),
    [domainHash],
    'a part of the name',
  );
  t.same(await listed(`/domains?status=verified&tenant_id=${account.id}`), [], 'no verified domain yet');
  t.same(await listed('/domains?search=%25'), [], 'a LIKE wildcard is matched literally');
});

t.test('one domain by its number: its DNS records as the dashboard shows them and its team; an unknown number is 404', async (t) => {
  const number = await domainNumber();
  const one = await asOperator(`/domains/${number}`);
  t.equal(one.status, 200, one.text);
  t.match(one.body, {
    id: number,
    domain_hash: domainHash,
    domain_name: domainName,
    verification_status: 'draft',
    dns_records: { dkim: { type: 'TXT', content: /p=/ }, spf: Array },
    auto_verification: { active: true },
    tenant: { id: account.id, name: `Reads Acme ${tag}`, kind: 'account', status: 'active' },
  });
  const missing = await asOperator('/domains/99999999');
  t.match(missing, { status: 404, body: { code: 'rest_domain_invalid_id', data: { status: 404 } } });
  t.equal((await asOperator('/domains/abc')).status, 404, 'a path id that is not digits matches no route');
});

t.test("the DNS check runs now, per record, and counts against the domain's on-demand limit like the dashboard's", async (t) => {
  const number = await domainNumber();
  const first = await asOperator(`/domains/${number}/dns`);
  t.equal(first.status, 200, first.text);
  t.match(first.body, {
    id: number,
    domain_hash: domainHash,
    domain_name: domainName,
    verified: false,
    records: [
      { role: 'dkim', type: 'TXT', name: `tern._domainkey.${domainName}`, found: [], ok: false },
      { role: 'spf', type: 'TXT', ok: false },
      { role: 'mx', type: 'MX', ok: false },
    ],
    checked_at: String,
    tenant: { id: account.id },
  });
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  t.equal((await h.request('GET', `/api/tern/v2/api/domains/${domainHash}/verify`, withSession(owner))).status, 200, "the owner's check");
  const third = await asOperator(`/domains/${number}/dns`);
  t.match(third, { status: 429, body: { code: 'rest_too_many_requests' } }, 'one limit per domain, whoever asks');
  t.equal((await asOperator('/domains/99999999/dns')).status, 404);
});

t.test('sending-stats ranks domains by volume over a window of days; a window out of range is refused', async (t) => {
  const ranked = await asOperator('/domains/sending-stats?per_page=100');
  t.equal(ranked.status, 200, ranked.text);
  const rows = ranked.body as Array<AdminDomainItem & { sending: { volume: number } }>;
  const mine = rows.findIndex((r) => r.domain_hash === domainHash);
  t.match(rows[mine], {
    domain_name: domainName,
    tenant_id: account.id,
    sending: { window_days: 30, sent: 1, bounced: 1, complained: 0, volume: 2, bounce_rate: 0.5 },
  });
  t.ok(
    rows.slice(0, mine).every((r) => r.sending.volume >= 2),
    'the largest volume first',
  );
  t.match(await asOperator('/domains/sending-stats?days=1'), { status: 200 });
  for (const days of ['0', '400', 'x']) {
    t.match(await asOperator(`/domains/sending-stats?days=${days}`), { status: 400, body: { code: 'rest_invalid_param', data: { params: { days: String } } } });
  }
});

t.test("an operator reads every team's log with log_ids, narrowed by team, domain, status, dates and words", async (t) => {
  const all = await asOperator('/logs?per_page=100');
  t.equal(all.status, 200, all.text);
  const rows = all.body as AdminLogItem[];
  const subjects = rows.map((r) => r.subject);
  t.ok(
    [`${tag}sent1`, `${tag}bounce1`, `${tag}other1`].every((s) => subjects.includes(s)),
    'every tenant',
  );
  t.match(
    rows.find((r) => r.subject === `${tag}other1`),
    { log_id: Number, tenant_id: other.id, status: 'sent', recipients_count: 1 },
  );
  t.ok(
    rows.every((r, i) => i === 0 || r.log_id < rows[i - 1]!.log_id),
    'newest first',
  );
  t.equal(all.headers.get('x-wp-total'), String(rows.length), 'the exact total');

  const subjectsOf = async (query: string) => (await listed<AdminLogItem>(`/logs?per_page=100&${query}`)).map((r) => r.subject).sort();
  t.same(await subjectsOf(`tenant_id=${other.id}`), [`${tag}other1`]);
  t.same(await subjectsOf(`domain=${domainName}`), [`${tag}bounce1`, `${tag}sent1`], 'a domain by name, of any tenant');
  t.same(await subjectsOf(`domain=${domainHash}&status=bounced`), [`${tag}bounce1`], 'a domain by id and a status');
  t.same(await subjectsOf(`domain=${domainName}&tenant_id=${other.id}`), [], 'a domain of another tenant than the one asked for');
  t.same(await subjectsOf('domain=nowhere.test'), [], 'a domain no tenant has');
  t.same(
    (await subjectsOf('status=bounced')).filter((s) => s.startsWith(tag)),
    [`${tag}bounce1`],
    'a status across tenants',
  );
  t.same(await subjectsOf(`search=${tag}other1`), [`${tag}other1`], 'a word of the subject, across tenants');
  t.same(await subjectsOf(`search=${tag}sent1&status=bounced`), [], 'words and a status');
  t.same(await subjectsOf(`search=${tag}sent1&tenant_id=${account.id}`), [`${tag}sent1`]);
  const today = new Date().toISOString().slice(0, 10);
  t.same(await subjectsOf(`tenant_id=${account.id}&from=${today}&to=${today}`), [`${tag}bounce1`, `${tag}sent1`], 'dates');
  t.same(await subjectsOf(`tenant_id=${account.id}&to=2001-01-01`), []);
  t.equal((await asOperator(`/logs?from=${today}`)).headers.get('x-wp-total'), all.headers.get('x-wp-total'), "today's whole platform");
});

t.test('one message by its log_id: recipients, attempts and events as the dashboard shows them; an unknown one is 404', async (t) => {
  const [row] = await listed<AdminLogItem>(`/logs?search=${tag}bounce1`);
  const one = await asOperator(`/logs/${row!.log_id}`);
  t.equal(one.status, 200, one.text);
  t.match(one.body, {
    log_id: row!.log_id,
    tenant_id: account.id,
    id: `${tag}bounce1`,
    status: 'bounced',
    recipients: [{ email: `${tag}bounce1@dest.test`, state: 'bounced', attempts: [{ outcome: 'bounced', mx_host: 'mx.dest.test', reply: /550/ }] }],
    events: [{ type: 'queued' }, { type: 'bounced' }],
  });
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  const dashboard = await h.request('GET', `/api/tern/v2/api/logs/${row!.id}`, withSession(owner));
  t.same(
    { ...(one.body as Record<string, unknown>), log_id: undefined, tenant_id: undefined },
    { ...(dashboard.body as Record<string, unknown>), log_id: undefined, tenant_id: undefined },
    "the dashboard's detail",
  );
  t.match(await asOperator('/logs/99999999'), { status: 404, body: { code: 'rest_message_invalid_id' } });
});

t.test("an operator lists every team's suppressions with their team, searched and filtered", async (t) => {
  const all = await asOperator('/suppressions?per_page=100');
  t.equal(all.status, 200, all.text);
  const rows = all.body as Array<{ email: string }>;
  t.match(
    rows.find((r) => r.email === `angry.${tag}@dest.test`),
    { tenant_id: other.id, status: 'complained', reason: 'abuse report', created_at: String },
  );
  t.match(
    rows.find((r) => r.email === `gone.${tag}@dest.test`),
    { tenant_id: account.id, status: 'bounced' },
  );
  const emails = async (query: string) => (await listed<{ email: string }>(`/suppressions?${query}`)).map((r) => r.email);
  t.same(await emails(`search=gone.${tag}`), [`gone.${tag}@dest.test`]);
  t.same(await emails(`tenant_id=${other.id}`), [`angry.${tag}@dest.test`]);
  t.same((await emails(`status=bounced&tenant_id=${account.id}`)).sort(), [`gone.${tag}@dest.test`, `${tag}bounce1@dest.test`], 'the bounce suppressed its address too');
  t.same(await emails(`status=complained&search=${tag}`), [`angry.${tag}@dest.test`]);
  t.same(await emails('search=%25'), [], 'a LIKE wildcard is matched literally');
});

t.test('bad filters are refused as rest_invalid_param and change nothing', async (t) => {
  const number = await domainNumber();
  const cases: Array<[string, string]> = [
    ['/domains?status=gone', 'status'],
    ['/domains?tenant_id=abc', 'tenant_id'],
    ['/domains?per_page=500', 'per_page'],
    ['/logs?status=lost', 'status'],
    ['/logs?tenant_id=0', 'tenant_id'],
    ['/logs?from=yesterday', 'from'],
    ['/logs?to=2024-13-45', 'to'],
    ['/suppressions?status=unhappy', 'status'],
    ['/suppressions?tenant_id=-1', 'tenant_id'],
  ];
  for (const [path, param] of cases) {
    const reply = await asOperator(path);
    t.equal(reply.status, 400, `${path}: ${reply.text.slice(0, 200)}`);
    t.match(reply.body, { code: 'rest_invalid_param', data: { params: { [param]: String } } });
  }
  t.match(await asOperator(`/domains/${number}`), { status: 200, body: { verification_status: 'draft' } }, 'the domain is unchanged');
});

t.test('owners, admins and viewers get 403 on every admin read route; anonymous callers 401', async (t) => {
  const number = await domainNumber();
  const [row] = await listed<AdminLogItem>('/logs');
  const paths = ['/domains', '/domains/sending-stats', `/domains/${number}`, `/domains/${number}/dns`, '/logs', `/logs/${row!.log_id}`, '/suppressions'];
  for (const role of ['owner', 'admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, account.id, role));
    for (const path of paths) {
      const reply = await h.request('GET', `${ADMIN}${path}`, withSession(s));
      t.equal(reply.status, 403, `${role}: ${path}`);
      t.match(reply.body, { code: 'rest_forbidden' });
    }
  }
  for (const path of paths) t.equal((await h.request('GET', `${ADMIN}${path}`)).status, 401, `anonymous: ${path}`);
});
