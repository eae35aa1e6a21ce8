// Crashes during a run, with real processes (dist/): kill -9 of the MTA, then the loss of Redis (killed
// and restarted from its AOF, then replaced by an empty one; with one MTA process and with two workers).
// Every message that was acknowledged is delivered, few twice, and no recipient is left leased.
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { countSink, httpLoad, waitDelivered, waitSettled } from './helpers/acknowledged-load.js';
import { startDeployment } from './helpers/processes.js';
import { runLoad, simpleMessage } from './helpers/smtp-load.js';
import { redisKeys } from '../shared/redis-keys.js';

const MESSAGES = 1000;
const CLIENTS = 8;
const KILL_AFTER_ACKS = 300;

t.test('kill -9 of the MTA during a 1,000-message SMTP run loses no acknowledged message', async (t) => {
  const d = await startDeployment({ config: { delivery: { leaseS: 5 } } });
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('crash.example.com');
  await d.startMta();

  let killed: Promise<void> | undefined;
  let killedAt = 0;
  let restartedAt = 0;
  let listeningAt = 0;
  const load = runLoad({
    port: d.starttlsPort,
    key: sender.sendingKey,
    count: MESSAGES,
    concurrency: CLIENTS,
    envelope: () => ({ from: 'load@crash.example.com', to: 'rcpt@dest.test' }),
    message: (n, attempt) => simpleMessage('load@crash.example.com', 'rcpt@dest.test', n, attempt),
    onAck: (_ack, acked) => {
      if (acked !== KILL_AFTER_ACKS) return;
      killed = (async () => {
        killedAt = Date.now();
        await d.killMta();
        // Down for a moment: clients keep trying and get refused connections meanwhile.
        await new Promise((r) => setTimeout(r, 1_000));
        restartedAt = Date.now();
        await d.startMta();
        listeningAt = Date.now();
      })();
    },
  });
  const result = await load;
  t.ok(killed, 'the MTA was killed mid-run');
  await killed;
  t.same(result.unacknowledged, [], 'every message was eventually acknowledged by the restarted MTA');
  t.equal(result.acks.size, MESSAGES);
  t.notOk(
    [...result.failures.keys()].some((code) => code >= 500),
    `no permanent refusal (failures by code: ${JSON.stringify([...result.failures])})`,
  );

  const missing = await waitDelivered(d.sink, [...result.acks.keys()], 60_000);
  const deliveredAt = Date.now();
  t.same(missing, [], 'every message that got a 250 reached the sink');

  const store = await d.store();
  // Acknowledged ids are the rows SQLite holds: the 250 named a committed message.
  for (const ack of result.acks.values()) {
    const row = await store.messages.get(ack.queuedId);
    if (!row) t.fail(`acknowledged message ${ack.queuedId} has no row`);
  }
  // Leases expire and delivery finishes: nothing stays in sending, nothing in flight.
  const states = await waitSettled(store);
  t.same(
    Object.keys(states).filter((s) => s !== 'sent'),
    [],
    `every recipient ends sent (${JSON.stringify(states)})`,
  );

  // No acknowledged message waits for the periodic sweep: each goes within a few seconds of its 250, or of
  // the restart for those the crash interrupted (a 5 s lease).
  let backlogDoneAt = 0;
  const late: string[] = [];
  for (const ack of result.acks.values()) {
    const attempts = await store.messages.attemptsOf(ack.queuedId);
    const deliveredAt = Math.max(...attempts.map((a) => Date.parse(a.at)));
    if (ack.at < killedAt) backlogDoneAt = Math.max(backlogDoneAt, deliveredAt);
    const lag = deliveredAt - Math.max(ack.at, listeningAt);
    if (lag > 25_000) late.push(`message ${ack.n} (${ack.queuedId}) delivered ${lag} ms after its 250`);
  }
  t.same(late, [], 'every acknowledged message is delivered promptly, none left for the sweep');
  const warnings = (d.mta?.output() ?? '').split('\n').filter((l) => /"level":[456]0/.test(l));
  if (warnings.length) t.comment(`MTA warnings after the restart:\n${warnings.slice(0, 20).join('\n')}`);
  const counted = countSink(d.sink);
  t.comment(`acknowledged ${result.acks.size} in ${result.ms} ms; failed attempts by code ${JSON.stringify([...result.failures])}`);
  t.comment(`duplicates: ${counted.redelivered} delivered twice by the MTA, ${counted.resubmitted} submitted again by a client that lost its reply`);
  t.comment(
    `recovery: down ${restartedAt - killedAt} ms; listening ${listeningAt - restartedAt} ms after the restart; ` +
      `everything acknowledged before the kill delivered ${backlogDoneAt - restartedAt} ms after the restart; ` +
      `the whole run delivered ${deliveredAt - restartedAt} ms after the restart`,
  );
  t.ok(counted.redelivered <= 25, `few duplicates after kill -9 (${counted.redelivered})`);
});

t.test('Redis killed during a run, restarted from its AOF and then replaced by an empty one, loses nothing acknowledged', (t) => redisLossRun(t, 1));

t.test('the same loss of Redis with an MTA of two worker processes loses nothing acknowledged either', (t) => redisLossRun(t, 2));

async function redisLossRun(t: Test, workers: number): Promise<void> {
  const d = await startDeployment({ config: { delivery: { leaseS: 5 }, mta: { workers } }, env: { TERNMAIL_RETRY_DELAYS_S: '1' } });
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('redis.example.com');
  await d.startMta();
  const probe = new Redis(d.redis.url, { maxRetriesPerRequest: null });
  probe.on('error', () => undefined);
  t.teardown(() => probe.disconnect());

  // Every fifth recipient is deferred (451) until Redis has been replaced: those live only in the schedule
  // that the empty Redis no longer has, so only the MTA's rebuild from SQLite can bring them back.
  let released = false;
  d.sink.rcptReply = (address) => (address.startsWith('later') && !released ? { code: 451, message: '4.7.1 try later' } : null);
  const to = (n: number) => (n % 5 === 0 ? `later${n}@dest.test` : `now${n}@dest.test`);

  const outages = redisOutagesDuringLoad(d, probe);
  const onAck = () => outages.onAck();
  const [smtp, viaHttp] = await Promise.all([
    runLoad({
      port: d.starttlsPort,
      key: sender.sendingKey,
      count: 600,
      concurrency: 6,
      envelope: (n) => ({ from: 'load@redis.example.com', to: to(n) }),
      message: (n, attempt) => simpleMessage('load@redis.example.com', to(n), n, attempt),
      onAck,
    }),
    httpLoad({ apiUrl: d.apiUrl, key: sender.sendingKey, from: 'app@redis.example.com', first: 10_000, count: 200, concurrency: 3, to, onAck }),
  ]);
  const { replacedAt, rescheduledAt } = await outages.done();
  t.ok(replacedAt > 0, 'Redis was replaced by an empty one mid-run');
  t.same(smtp.unacknowledged, [], 'every SMTP message was eventually acknowledged');
  t.notOk(
    [...smtp.failures.keys()].some((code) => code >= 500),
    `SMTP refusals while Redis was away were temporary (${JSON.stringify([...smtp.failures])})`,
  );
  t.equal(viaHttp.acks.size, 200, 'every HTTP send was eventually acknowledged');
  released = true;
  const releasedAt = Date.now();

  // The periodic sweep would find lost recipients only 30 to 60 s later; the rebuild makes it seconds.
  const all = [...smtp.acks.keys(), ...viaHttp.acks.keys()];
  const missing = await waitDelivered(d.sink, all, 20_000);
  const deliveredAt = Date.now();
  t.same(missing, [], 'every acknowledged message reached the sink within seconds');
  const store = await d.store();
  const states = await waitSettled(store);
  t.same(
    Object.keys(states).filter((s) => s !== 'sent'),
    [],
    `every recipient ends sent (${JSON.stringify(states)})`,
  );
  t.equal(await probe.zcard(redisKeys.queueDue()), 0, 'nothing left on the schedule');
  const counted = countSink(d.sink);
  t.comment(`failed attempts while Redis was away: SMTP by code ${JSON.stringify([...smtp.failures])}, HTTP by status ${JSON.stringify([...viaHttp.failures])}`);
  t.comment(
    `schedule back in the empty Redis ${rescheduledAt - replacedAt} ms after it started; deferred ones delivered ${deliveredAt - releasedAt} ms after the sink accepted them; duplicates: ${counted.redelivered}`,
  );
  t.ok(counted.redelivered <= 10, `few duplicates (${counted.redelivered})`);
}

/** Redis lost twice as acknowledgements come: killed and restarted from its AOF at the 150th, replaced by an empty one at the 400th. */
function redisOutagesDuringLoad(
  d: Awaited<ReturnType<typeof startDeployment>>,
  probe: Redis,
): { onAck(): void; done(): Promise<{ replacedAt: number; rescheduledAt: number }> } {
  let acked = 0;
  let events = Promise.resolve();
  let replacedAt = 0;
  let rescheduledAt = 0;
  const onAck = () => {
    acked++;
    if (acked === 150) events = events.then(() => d.redisOutage(1_500, 'from-aof'));
    if (acked === 400) {
      events = events.then(async () => {
        await d.redisOutage(1_500, 'empty');
        replacedAt = Date.now();
        // The deferred recipients reappear in the new Redis: the MTA rebuilt its schedule.
        const deadline = replacedAt + 30_000;
        while ((await probe.zcard(redisKeys.queueDue())) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        rescheduledAt = Date.now();
      });
    }
  };
  return { onAck, done: async () => (await events, { replacedAt, rescheduledAt }) };
}
