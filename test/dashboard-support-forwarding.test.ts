// Forwarding tickets to an external helpdesk over real HTTP: an operator sets the forwarding URL and is shown the
// signing secret once; a customer opens a ticket and an agent answers it; the helpdesk (an https receiver on
// loopback, its name in the test DNS server, its certificate trusted through webhooks.caFile) gets each as a
// signed POST, checked here with the secret; a helpdesk answering 500 gets the forward again later.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { certificate, verifies } from './helpers/webhook-receiver.js';
import { freePort } from './helpers/redis.js';
import { until } from './helpers/wait.js';

interface Got {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const NS = '/api/tern-support/v1';
type Json = Record<string, UntypedJson>;

const dir = mkdtempSync(join(tmpdir(), 'tern-forward-'));
const tls = await certificate();
writeFileSync(join(dir, 'ca.pem'), tls.cert);
const dns: TestDnsServer = await startDnsServer();
dns.set('helpdesk.example.com', [{ type: 'A', data: '127.0.0.1' }]);

/** The helpdesk: keeps every request; a path's first `failFirst` requests are answered 500. */
const got: Got[] = [];
let failFirst = 0;
const port = await freePort();
const helpdesk: Server = createServer(tls, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    if (failFirst > 0) {
      failFirst -= 1;
      res.writeHead(500).end('helpdesk down');
    } else res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => helpdesk.listen(port, '127.0.0.1', resolve));

// Loopback is allowed only where private addresses are (tests, closed networks), as for webhooks.
const h: Harness = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true', TERNMAIL_WEBHOOK_CA_FILE: join(dir, 'ca.pem') },
  overrides: { support: { forwarding: { intervalMs: 100, retryBaseMs: 300 } } },
});
t.teardown(async () => {
  await h.close();
  await new Promise<void>((resolve) => helpdesk.close(() => resolve()));
  await dns.close();
  rmSync(dir, { recursive: true, force: true });
});

const operator: SignedIn = await logIn(h, await operatorOn(h));
const account = await h.account();
const owner: SignedIn = await logIn(h, await userOn(h, account.id, 'owner'));
const post = (s: SignedIn, path: string, body: Json) => h.request('POST', `${NS}${path}`, { ...withSession(s), body });
const to = (path: string) => got.filter((g) => g.path === path);

async function forwardTo(path: string): Promise<string> {
  const set = await post(operator, '/api_settings', { forward_url: `https://helpdesk.example.com:${port}${path}` });
  if (set.status !== 200) throw new Error(set.text);
  return set.body.forward_secret as string;
}

t.test('a new ticket and an agent’s response reach the helpdesk as signed POSTs; the secret is shown once', async (t) => {
  const secret = await forwardTo('/in');
  t.match(secret, /^whsec_/);
  const shown = await h.request('GET', `${NS}/api_settings`, withSession(operator));
  t.match(shown.body, { forward_url: `https://helpdesk.example.com:${port}/in`, forwarding_active: true });
  t.notOk('forward_secret' in (shown.body as Json), 'GET never shows the secret');

  const ticket = await post(owner, '/tickets', { title: 'Bounces from example.org', content: 'Every message bounces.' });
  t.equal(ticket.status, 201, ticket.text);
  const id = ticket.body.id as number;
  const answer = await post(operator, `/tickets/${id}/responses`, { content: 'We are looking into it.' });
  t.equal(answer.status, 201, answer.text);

  const both = await until('two forwards at the helpdesk', () => to('/in').length >= 2 && to('/in'));
  t.equal(both.length, 2, 'each once');
  for (const g of both) t.ok(verifies(secret, g.headers, g.body), `signed with the secret shown (${String(g.headers['webhook-id'])})`);
  const [created, response] = both.map((g) => JSON.parse(g.body) as Json);
  t.match(created, {
    type: 'ticket.created',
    ticket: { id, team_id: account.id, title: 'Bounces from example.org', content: 'Every message bounces.', author: { kind: 'customer' } },
    sent_at: String,
  });
  t.notOk('response' in created!);
  t.match(response, {
    type: 'ticket.response',
    ticket: { id, status: 'active' },
    response: { content: 'We are looking into it.', author: { kind: 'agent', name: String } },
  });
  t.notOk(/@/.test(both.map((g) => g.body).join('')), 'no email address is forwarded');
  t.match(await h.rt.store.support.forwardsOf(id), [
    { state: 'delivered', attempts: 1 },
    { state: 'delivered', attempts: 1 },
  ]);
});

t.test('a helpdesk answering 500 gets the forward again, with the same webhook-id, until it takes it', async (t) => {
  const secret = await forwardTo('/flaky');
  failFirst = 1;
  const ticket = await post(owner, '/tickets', { title: 'Retry me', content: 'The first try fails.' });
  t.equal(ticket.status, 201, ticket.text);
  const [first, second] = await until('a retried forward', () => to('/flaky').length >= 2 && to('/flaky'));
  t.equal(first!.headers['webhook-id'], second!.headers['webhook-id'], 'one message, tried twice');
  t.ok(verifies(secret, second!.headers, second!.body));
  const rows = await until('the forward marked delivered', async () => {
    const r = await h.rt.store.support.forwardsOf(ticket.body.id as number);
    return r[0]?.state === 'delivered' && r;
  });
  t.match(rows, [{ state: 'delivered', attempts: 2 }]);
});

t.test('with no forwarding URL, tickets stay in Tern only', async (t) => {
  const cleared = await post(operator, '/api_settings', { forward_url: '' });
  t.match(cleared.body, { forwarding_active: false, forward_secret: null });
  const ticket = await post(owner, '/tickets', { title: 'Kept here', content: 'Not forwarded.' });
  t.same(await h.rt.store.support.forwardsOf(ticket.body.id as number), []);
});
