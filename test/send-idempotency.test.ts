// Idempotency-Key on POST /v2/emails and /v2/emails/batch over real HTTP, run three times: with the replies kept
// in Redis (the default on SQLite), in the database on SQLite (idempotency.store "database"), and on PostgreSQL
// (the database, by default). All answer alike; only the database keeps a reply when Redis loses its data.
import t, { type Test } from 'tap';
import { startHarness, type Harness, type HarnessOptions, type HttpReply } from './helpers/harness.js';
import { startPostgres } from './harness/postgres.js';
import { grantCredits } from './helpers/credits.js';
import { storedDomain } from './helpers/sending-setup.js';
import { idempotencyStoreOf } from '../shared/core/sending/idempotency.js';

interface Setup {
  id: number;
  adminKey: string;
  domain: string;
  sendKey: string;
}

/** A Tern whose replies are kept in `keeper`, and short ways to use it. */
interface World {
  h: Harness;
  keeper: 'redis' | 'database';
  /** A root account with a verified domain and a sending key, allowed to send fast. */
  setup(credits?: number): Promise<Setup>;
  /** A verified domain of the team, by a name of its own. */
  domainOf(teamId: number): Promise<string>;
  send(key: string, body: unknown, idempotencyKey: string, teamId?: number): Promise<HttpReply>;
  balance(id: number): Promise<number>;
  messageCount(s: Setup): Promise<number>;
}

function worldOf(h: Harness, keeper: 'redis' | 'database'): World {
  let domains = 0;
  const domainOf = async (teamId: number) => (await storedDomain(h, teamId, `idem${++domains}.example.com`)).name;
  return {
    h,
    keeper,
    domainOf,
    async setup(credits = 100) {
      const acct = await h.account({ credits });
      await h.rt.store.teams.update(acct.id, { limitPerSecond: 1000 });
      const domain = await domainOf(acct.id);
      const key = await h.request('POST', '/v2/api-keys', { key: acct.key, body: { name: 'app' } });
      if (key.status !== 201) throw new Error(key.text);
      return { id: acct.id, adminKey: acct.key, domain, sendKey: key.body.data.api_key };
    },
    send: (key, body, idempotencyKey, teamId) =>
      h.request('POST', '/v2/emails', { key, body, headers: { 'Idempotency-Key': idempotencyKey }, ...(teamId === undefined ? {} : { teamId }) }),
    balance: async (id) => (await h.rt.store.teams.get(id))!.creditBalance,
    messageCount: async (s) => (await h.request('GET', '/v2/emails', { key: s.adminKey })).body.total as number,
  };
}

const mail = (domain: string, extra: Record<string, unknown> = {}) => ({
  from: { email: `news@${domain}` },
  to: [{ email: 'bob@dest.test' }],
  subject: 'Hello',
  text: 'Hello Bob',
  ...extra,
});

function refused(t: Test, res: HttpReply, status: number, code: string): void {
  t.equal(res.status, status, res.text);
  t.ok(res.body?.errors?.idempotency_key?.[code], `errors.idempotency_key.${code} (${res.text})`);
}

type Case = [name: string, run: (t: Test, w: World) => Promise<void>];

const CASES: Case[] = [
  [
    'the same key and body twice returns the same message_id, stores one message and charges once; another body is a conflict',
    async (t, w) => {
      const s = await w.setup();
      const body = mail(s.domain, { to: [1, 2, 3].map((n) => ({ email: `user${n}@dest.test` })) });
      const first = await w.send(s.sendKey, body, 'order-1');
      const second = await w.send(s.sendKey, body, 'order-1');
      t.equal(first.status, 200, first.text);
      t.equal(second.status, 200, second.text);
      t.equal(second.body.message_id, first.body.message_id);
      t.equal(second.headers.get('idempotent-replayed'), 'true');
      t.equal(await w.messageCount(s), 1);
      t.equal(await w.balance(s.id), 97, 'three credits, once');
      refused(t, await w.send(s.sendKey, mail(s.domain, { subject: 'Other' }), 'order-1'), 409, 'conflict');
      t.equal(await w.messageCount(s), 1);
      const fresh = await w.send(s.sendKey, body, 'order-2');
      t.not(fresh.body.message_id, first.body.message_id, 'another key is another message');
    },
  ],

  [
    'a key longer than 255 characters is refused with 400 and sends nothing',
    async (t, w) => {
      const s = await w.setup();
      refused(t, await w.send(s.sendKey, mail(s.domain), 'k'.repeat(256)), 400, 'invalid');
      t.equal(await w.messageCount(s), 0);
      t.equal((await w.send(s.sendKey, mail(s.domain), 'k'.repeat(255))).status, 200);
    },
  ],

  [
    'a failed request does not hold its key',
    async (t, w) => {
      const s = await w.setup(0);
      const refusedSend = await w.send(s.sendKey, mail(s.domain), 'retry-me');
      t.equal(refusedSend.status, 403, refusedSend.text);
      await grantCredits(w.h.rt.store, s.id, 5);
      const retried = await w.send(s.sendKey, mail(s.domain), 'retry-me');
      t.equal(retried.status, 200, retried.text);
      t.equal(retried.headers.get('idempotent-replayed'), null);
    },
  ],

  [
    'concurrent requests with the same key send one message; the others are told it is in progress',
    async (t, w) => {
      const s = await w.setup();
      const replies = await Promise.all(Array.from({ length: 5 }, () => w.send(s.sendKey, mail(s.domain), 'race')));
      const ok = replies.filter((r) => r.status === 200);
      t.ok(ok.length >= 1, replies.map((r) => r.status).join(','));
      t.equal(new Set(ok.map((r) => r.body.message_id)).size, 1, 'every 200 names the same message');
      for (const r of replies.filter((x) => x.status !== 200)) refused(t, r, 409, 'in_progress');
      t.equal(await w.messageCount(s), 1);
      t.equal(await w.balance(s.id), 99);
    },
  ],

  [
    'different accounts using the same key value do not collide',
    async (t, w) => {
      const [a, b] = [await w.setup(), await w.setup()];
      const ra = await w.send(a.sendKey, mail(a.domain), 'shared-value');
      const rb = await w.send(b.sendKey, mail(b.domain), 'shared-value');
      t.equal(ra.status, 200, ra.text);
      t.equal(rb.status, 200, rb.text);
      t.not(ra.body.message_id, rb.body.message_id);
      t.equal((await w.h.rt.store.messages.get(rb.body.message_id))?.teamId, b.id);
    },
  ],

  [
    'the same key on a batch returns the first batch answer',
    async (t, w) => {
      const s = await w.setup();
      const body = [mail(s.domain), mail(s.domain, { subject: 'Two' })];
      const first = await w.h.request('POST', '/v2/emails/batch', { key: s.sendKey, body, headers: { 'Idempotency-Key': 'batch-1' } });
      const second = await w.h.request('POST', '/v2/emails/batch', { key: s.sendKey, body, headers: { 'Idempotency-Key': 'batch-1' } });
      t.equal(first.status, 200, first.text);
      t.same(second.body, first.body);
      t.equal(await w.messageCount(s), 2);
    },
  ],

  [
    'a key is scoped to the team acted on: the same key and body for another team is not a replay',
    async (t, w) => {
      const s = await w.setup();
      const teamA: number = (await w.h.request('POST', '/v2/teams', { key: s.adminKey, body: { name: 'Team A' } })).body.data.id;
      const teamB: number = (await w.h.request('POST', '/v2/teams', { key: s.adminKey, body: { name: 'Team B' } })).body.data.id;
      const domain = await w.domainOf(teamA);
      const forA = await w.send(s.adminKey, mail(domain), 'same-for-both', teamA);
      t.equal(forA.status, 200, forA.text);
      const forB = await w.send(s.adminKey, mail(domain), 'same-for-both', teamB);
      t.equal(forB.status, 422, 'team B may not send from team A’s domain');
      t.equal(forB.headers.get('idempotent-replayed'), null, 'team B did not get team A’s answer');
      const againA = await w.send(s.adminKey, mail(domain), 'same-for-both', teamA);
      t.equal(againA.body.message_id, forA.body.message_id, 'team A still gets its replay');
      t.equal(againA.headers.get('idempotent-replayed'), 'true');
    },
  ],

  [
    'a reply survives Redis losing its data only when the database keeps it (by default on SQLite, Redis keeps it: the key sends again)',
    async (t, w) => {
      const s = await w.setup();
      const first = await w.send(s.sendKey, mail(s.domain), 'failover');
      t.equal(first.status, 200, first.text);
      await w.h.rt.redis.flushall();
      const after = await w.send(s.sendKey, mail(s.domain), 'failover');
      t.equal(after.status, 200, after.text);
      if (w.keeper === 'database') t.equal(after.body.message_id, first.body.message_id, 'replayed from the database');
      else t.not(after.body.message_id, first.body.message_id, 'Redis forgot the reply');
      t.equal(await w.messageCount(s), w.keeper === 'database' ? 1 : 2);
    },
  ],
];

/** Every case on a Tern started with `options`, whose replies `keeper` keeps; `after` runs once it is closed. */
async function idempotencyCases(t: Test, options: HarnessOptions, keeper: 'redis' | 'database', after?: () => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  t.teardown(async () => {
    await h.close();
    await after?.();
  });
  const w = worldOf(h, keeper);
  for (const [name, run] of CASES) await t.test(name, (t) => run(t, w));
}

t.test('replies are kept where idempotency.store says; unset, in the database on PostgreSQL and in Redis on SQLite', async (t) => {
  t.equal(idempotencyStoreOf(null, 'postgresql'), 'database');
  t.equal(idempotencyStoreOf(null, 'sqlite'), 'redis');
  t.equal(idempotencyStoreOf('redis', 'postgresql'), 'redis');
  t.equal(idempotencyStoreOf('database', 'sqlite'), 'database');
});

t.test('replies kept in Redis (the default on SQLite)', (t) => idempotencyCases(t, {}, 'redis'));
t.test('replies kept in the database on SQLite (idempotency.store "database")', (t) =>
  idempotencyCases(t, { overrides: { idempotency: { store: 'database' } } }, 'database'),
);
t.test('replies kept in the database by default on PostgreSQL (TERNMAIL_DATABASE_URL)', async (t) => {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase().catch(async (err: unknown) => {
    await cluster.stop();
    throw err;
  });
  await idempotencyCases(t, { env: { TERNMAIL_DATABASE_URL: url } }, 'database', () => cluster.stop());
});
