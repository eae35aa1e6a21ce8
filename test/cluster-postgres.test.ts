// Tern on several machines, as processes: two `ternmail api` and two `ternmail mta` on one PostgreSQL database
// and one Redis, each with a data dir of its own holding the same master key. 2,000 messages go in through
// both APIs (/v2) and both MTAs' submission listeners; one MTA is killed with SIGKILL half-way. Every message
// that got its 200 or 250 reaches the sink, and the only copies delivered twice are from the killed MTA's
// leases (its in-flight batch, counted from the database at the moment of the kill).
import t from 'tap';
import { hostname } from 'node:os';
import { countSink, httpLoad, waitDelivered, waitSettled } from './helpers/acknowledged-load.js';
import { startDeployment } from './helpers/processes.js';
import { runLoad, simpleMessage, type Ack, type LoadResult } from './helpers/smtp-load.js';
import { startPostgres } from './harness/postgres.js';
import { leasesHeldBy } from './store/leases-held.js';

const PER_ENTRY = 500;
const KILL_AFTER_ACKS = 2 * PER_ENTRY;

const postgres = await startPostgres();
const databaseUrl = await postgres.createDatabase();
const d = await startDeployment({ databaseUrl, config: { delivery: { leaseS: 5 } } });
t.teardown(async () => {
  await d.close();
  await postgres.stop();
});
await d.startApi();
const sender = await d.sender('pgcluster.example.com');
await d.startMta();
// One after the other: free ports are found, not reserved, so two nodes picking theirs at once could collide.
const api2 = await d.addNode('api');
const mta2 = await d.addNode('mta');
const from = 'load@pgcluster.example.com';
const to = (n: number) => `rcpt${n}@dest.test`;

/** Message numbers first … first + PER_ENTRY - 1 over SMTP, each attempt alternating between the two MTAs from `ports[0]`. */
function smtpLoad(first: number, ports: [number, number], onAck: () => void): Promise<LoadResult> {
  return runLoad({
    port: (_n, attempt) => ports[attempt % 2]!,
    key: sender.sendingKey,
    count: PER_ENTRY,
    concurrency: 4,
    envelope: (n) => ({ from, to: to(first + n) }),
    message: (n, attempt) => simpleMessage(from, to(first + n), first + n, attempt),
    onAck,
  });
}

t.test('2 APIs and 2 MTAs on one PostgreSQL: kill -9 of an MTA mid-run loses no accepted message', async (t) => {
  const killedPid = d.mta!.pid;
  let acked = 0;
  let inFlightAtKill = -1;
  let killedAt = 0;
  let killed: Promise<void> | undefined;
  const onAck = () => {
    if (++acked !== KILL_AFTER_ACKS) return;
    killed = (async () => {
      killedAt = Date.now();
      await d.killMta();
      inFlightAtKill = await leasesHeldBy(databaseUrl, hostname(), killedPid);
    })();
  };
  const started = Date.now();
  const [smtp1, smtp2, http1, http2] = await Promise.all([
    smtpLoad(0, [d.starttlsPort, mta2.starttlsPort], onAck),
    smtpLoad(PER_ENTRY, [mta2.starttlsPort, d.starttlsPort], onAck),
    httpLoad({ apiUrl: d.apiUrl, key: sender.sendingKey, from, first: 2 * PER_ENTRY, count: PER_ENTRY, concurrency: 4, to, onAck }),
    httpLoad({ apiUrl: api2.apiUrl, key: sender.sendingKey, from, first: 3 * PER_ENTRY, count: PER_ENTRY, concurrency: 4, to, onAck }),
  ]);
  const loadMs = Date.now() - started;
  t.ok(killed, 'an MTA was killed mid-run');
  await killed;
  t.same([...smtp1.unacknowledged, ...smtp2.unacknowledged], [], 'every SMTP message was acknowledged (by the surviving MTA after the kill)');
  t.notOk(
    [...smtp1.failures.keys(), ...smtp2.failures.keys()].some((code) => code >= 500),
    `no permanent refusal (${JSON.stringify([...smtp1.failures, ...smtp2.failures])})`,
  );
  t.equal(http1.acks.size + http2.acks.size, 2 * PER_ENTRY, 'every HTTP send got its 200, through both APIs');

  const ackedOf = (...loads: Array<{ acks: Map<number, Ack> }>) => loads.flatMap((l) => [...l.acks.values()]);
  const all = [...ackedOf(smtp1).map((a) => a.n), ...ackedOf(smtp2).map((a) => PER_ENTRY + a.n), ...ackedOf(http1, http2).map((a) => a.n)];
  t.equal(new Set(all).size, 4 * PER_ENTRY, 'all 2,000 messages were accepted');
  const missing = await waitDelivered(d.sink, all, 100_000);
  const deliveredAt = Date.now();
  t.same(missing, [], 'every accepted message reached the sink: none lost');
  const states = await waitSettled(await d.store());
  t.same(
    Object.keys(states).filter((s) => s !== 'sent'),
    [],
    `every recipient ends sent (${JSON.stringify(states)})`,
  );

  const counted = countSink(d.sink);
  const byMta = (name: string) => d.sink.messages.filter((m) => m.heloName === name).length;
  t.ok(byMta('mx.tern.test') > 0 && byMta(mta2.hostname) > 0, `both MTAs delivered (the killed one ${byMta('mx.tern.test')}, the survivor ${byMta(mta2.hostname)})`);
  t.notOk(mta2.process.exited() || api2.process.exited(), 'the surviving MTA and the second API ran to the end');
  if (mta2.process.exited()) t.comment(`the second MTA exited:\n${mta2.process.output().slice(-3000)}`);
  t.ok(inFlightAtKill >= 0, 'the killed MTA’s leases were counted');
  t.comment(
    `accepted ${all.length} in ${loadMs} ms (SMTP via MTA 1/2: ${smtp1.acks.size}/${smtp2.acks.size}, HTTP via API 1/2: ${http1.acks.size}/${http2.acks.size}); ` +
      `failed attempts: SMTP ${JSON.stringify([...smtp1.failures, ...smtp2.failures])}, HTTP ${JSON.stringify([...http1.failures, ...http2.failures])}`,
  );
  t.comment(
    `killed MTA (pid ${killedPid}): ${inFlightAtKill} recipients in flight (leased) at the kill; delivered by it ${byMta('mx.tern.test')}, by the survivor ${byMta(mta2.hostname)}`,
  );
  t.comment(
    `duplicates: ${counted.redelivered} delivered twice by an MTA, ${counted.resubmitted} submitted again by a client that lost its reply; ` +
      `everything delivered ${deliveredAt - killedAt} ms after the kill`,
  );
  t.ok(counted.redelivered <= inFlightAtKill, `duplicates (${counted.redelivered}) at most the killed MTA's in-flight batch (${inFlightAtKill})`);
});
