// Redis behind Sentinel, with real processes (dist/): Tern's API and MTA reach Redis through one sentinel
// (TERNMAIL_REDIS_SENTINELS), and the primary is killed while mail is sent over SMTP and HTTP. The sentinel
// promotes the replica; the same processes reconnect to it by themselves, sending resumes, and every message
// that got its 250 or 200 reaches the sink. Then the old primary comes back as a replica and a planned failover
// (SENTINEL FAILOVER) makes it master again while mail is sent: the demoted master is alive this time.
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { redisKeys } from '../shared/redis-keys.js';
import { freePort } from './harness/ports.js';
import { startSentinelGroup } from './harness/redis-sentinel.js';
import { until } from './harness/wait.js';
import { runCli } from './helpers/cli.js';
import { countSink, httpLoad, waitDelivered, waitSettled } from './helpers/acknowledged-load.js';
import { startDeployment } from './helpers/processes.js';
import { testEngine } from './harness/test-engine.js';
import { runLoad, simpleMessage, type Ack, type LoadResult } from './helpers/smtp-load.js';

const SMTP_MESSAGES = 500;
const HTTP_MESSAGES = 250;
const KILL_AFTER_ACKS = 120;

const group = await startSentinelGroup();
t.teardown(() => group.stop());
const d = await startDeployment({
  config: { delivery: { leaseS: 5 } },
  // The deployment's own Redis stays unused: the processes reach the group through its sentinel only.
  env: { TERNMAIL_REDIS_URL: '', TERNMAIL_REDIS_SENTINELS: group.sentinelAddress, TERNMAIL_REDIS_SENTINEL_NAME: group.name },
});
t.teardown(() => d.close());
await d.startApi();
const sender = await d.sender('failover.example.com');
await d.startMta();

t.test('ternmail status names the sentinels and the master that answers; the MTA /readyz says Redis is reached through Sentinel', async (t) => {
  const status = await runCli(['status', '--json'], d.env);
  t.equal(status.code, 0, `ternmail status exits 0 ${status.stderr}`);
  t.same(status.json.redis, { up: true, mode: 'sentinel', master_group: 'mymaster', sentinels: [group.sentinelAddress], master: `127.0.0.1:${group.primary.port}` });
  const text = await runCli(['status'], d.env);
  t.match(text.stdout, new RegExp(`^Redis +up  Sentinel group mymaster \\(sentinels ${group.sentinelAddress}\\), master 127\\.0\\.0\\.1:${group.primary.port}$`, 'm'));
  const readyz = await fetch(`http://127.0.0.1:${d.metricsPort}/readyz`);
  t.same(
    await readyz.json(),
    { status: 'ok', store: { engine: testEngine === 'postgres' ? 'postgresql' : 'sqlite' }, redis: { mode: 'sentinel', master_group: 'mymaster' } },
    'the engine, the mode and the group, no address',
  );
});

t.test('with every sentinel unreachable, ternmail queue flush and ternmail status end at once', async (t) => {
  const nowhere = `127.0.0.1:${await freePort()}`;
  const env = { ...d.env, TERNMAIL_REDIS_SENTINELS: nowhere };
  let started = Date.now();
  const flush = await runCli(['queue', 'flush', '--all'], env, 20_000);
  t.equal(flush.code, 0, `queue flush exits 0, the MTA sweep finds what it made due (${flush.stderr})`);
  t.ok(Date.now() - started < 15_000, `queue flush did not wait for the sentinels (${Date.now() - started} ms)`);
  started = Date.now();
  const status = await runCli(['status'], env, 20_000);
  t.equal(status.code, 1, 'status exits 1: Redis is down');
  t.match(status.stdout, new RegExp(`^Redis +DOWN  Sentinel group mymaster \\(sentinels ${nowhere}\\), no master reached$`, 'm'));
  t.ok(Date.now() - started < 15_000, `status did not wait for the sentinels (${Date.now() - started} ms)`);
});

/** What one run of sending around a Redis event saw. */
interface Run {
  smtp: LoadResult;
  viaHttp: Awaited<ReturnType<typeof httpLoad>>;
  /** When the event started, and when the sentinel named the new master. */
  startedAt: number;
  switchedAt: number;
}

/**
 * Sends SMTP_MESSAGES over SMTP and HTTP_MESSAGES over HTTP (numbered from `httpFirst`), each retried until
 * acknowledged, and runs `event` (a failover) after KILL_AFTER_ACKS acknowledgements, while sending goes on.
 */
async function sendAround(event: () => Promise<unknown>, httpFirst: number): Promise<Run> {
  let happened: Promise<void> | undefined;
  let startedAt = 0;
  let switchedAt = 0;
  let acked = 0;
  const onAck = () => {
    if (++acked !== KILL_AFTER_ACKS) return;
    startedAt = Date.now();
    happened = event().then(() => void (switchedAt = Date.now()));
  };
  const to = (n: number) => `rcpt${n}@dest.test`;
  const [smtp, viaHttp] = await Promise.all([
    runLoad({
      port: d.starttlsPort,
      key: sender.sendingKey,
      count: SMTP_MESSAGES,
      concurrency: 4,
      envelope: (n) => ({ from: 'load@failover.example.com', to: to(n) }),
      message: (n, attempt) => simpleMessage('load@failover.example.com', to(n), n, attempt),
      onAck,
      deadlineMs: 60_000,
    }),
    httpLoad({ apiUrl: d.apiUrl, key: sender.sendingKey, from: 'app@failover.example.com', first: httpFirst, count: HTTP_MESSAGES, concurrency: 3, to, onAck }),
  ]);
  if (!happened) throw new Error(`only ${acked} messages acknowledged: the failover never started`);
  await happened;
  return { smtp, viaHttp, startedAt, switchedAt };
}

/** Every message acknowledged, sending resumed after the switch in the same processes, all delivered, none twice by the MTA. */
async function checkNothingLost(t: Test, run: Run, pids: { api: number; mta: number }): Promise<void> {
  const { smtp, viaHttp } = run;
  t.same(smtp.unacknowledged, [], 'every SMTP message was eventually acknowledged');
  t.notOk(
    [...smtp.failures.keys()].some((code) => code >= 500),
    `SMTP refusals during the failover were temporary (${JSON.stringify([...smtp.failures])})`,
  );
  t.equal(viaHttp.acks.size, HTTP_MESSAGES, 'every HTTP send was eventually acknowledged');
  const acks: Ack[] = [...smtp.acks.values(), ...viaHttp.acks.values()];
  const afterSwitch = acks.filter((a) => a.at > run.switchedAt).length;
  t.ok(afterSwitch > 0, `sending resumed after the new master was named (${afterSwitch} messages acknowledged after it)`);
  t.equal(d.api!.pid, pids.api, 'the same API process');
  t.equal(d.mta!.pid, pids.mta, 'the same MTA process');
  t.notOk(d.api!.exited() || d.mta!.exited(), 'neither process exited');

  const missing = await waitDelivered(d.sink, [...smtp.acks.keys(), ...viaHttp.acks.keys()], 30_000);
  t.same(missing, [], 'every message that got a 250 or a 200 reached the sink');
  const states = await waitSettled(await d.store());
  t.same(
    Object.keys(states).filter((s) => s !== 'sent'),
    [],
    `every recipient ends sent (${JSON.stringify(states)})`,
  );
  const counted = countSink(d.sink);
  t.comment(`failed attempts during the failover: SMTP by code ${JSON.stringify([...smtp.failures])}, HTTP by status ${JSON.stringify([...viaHttp.failures])}`);
  t.comment(`duplicates: ${counted.redelivered} delivered twice by the MTA, ${counted.resubmitted} submitted again by a client that lost its reply`);
  t.equal(counted.redelivered, 0, 'a Redis failover makes the MTA deliver nothing twice');
}

/** `ternmail status` names `port` as the master once the CLI's connection reaches it. */
async function statusNamesMaster(t: Test, port: number): Promise<void> {
  const status = await until(`ternmail status to name the master on ${port}`, async () => {
    const r = await runCli(['status', '--json'], d.env);
    return r.json?.redis?.master === `127.0.0.1:${port}` ? r : null;
  });
  t.equal(status.json.redis.up, true, `ternmail status: the master on ${port} answers`);
}

/**
 * The subscriptions moved to the master on `port`: the MTA's wake-up channel (one subscriber) and the key
 * revocations (one subscriber in each process).
 */
async function subscriptionsOn(t: Test, port: number): Promise<void> {
  const master = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  master.on('error', () => undefined);
  t.teardown(() => master.disconnect());
  const channels = [redisKeys.queueWakeChannel(), redisKeys.keyRevokedChannel()];
  // A probe that fails (the test's own connection to a master just promoted, under load) is one more try, not
  // the verdict: until() would otherwise rethrow at once. The last answer or error goes into the assertion.
  let last = 'no answer yet';
  const counts = await until(
    `the subscriptions on the master on ${port}`,
    async () => {
      try {
        const reply = (await master.call('PUBSUB', 'NUMSUB', ...channels)) as Array<string | number>;
        const [wake, revoked] = [Number(reply[1]), Number(reply[3])];
        last = JSON.stringify({ wake, revoked });
        return wake >= 1 && revoked >= 2 ? { wake, revoked } : null;
      } catch (err) {
        last = `error: ${(err as Error).message}`;
        return null;
      }
    },
    30_000,
  ).catch(() => null);
  t.ok(counts, `the MTA's wake-up subscription and both processes' key-revocation subscriptions are on the master on ${port} (last seen: ${last})`);
}

t.test('the primary killed while mail is sent: the replica is promoted, sending resumes in the same processes, nothing acknowledged is lost', async (t) => {
  const pids = { api: d.api!.pid, mta: d.mta!.pid };
  const run = await sendAround(() => group.killPrimary(), 10_000);
  t.ok(run.switchedAt > 0, `the sentinel promoted the replica ${run.switchedAt - run.startedAt} ms after the kill`);
  await checkNothingLost(t, run, pids);
  await statusNamesMaster(t, group.replica.port);
  await subscriptionsOn(t, group.replica.port);
});

t.test('a planned failover back to the old primary, alive and demoted, while mail is sent: same processes, nothing acknowledged is lost', async (t) => {
  await group.restartPrimaryAsReplica();
  // The first run is all delivered (it settled): its copies leave the count, the message numbers start again.
  d.sink.messages.length = 0;
  const pids = { api: d.api!.pid, mta: d.mta!.pid };
  const run = await sendAround(() => group.switchover(group.primary), 20_000);
  t.ok(run.switchedAt > 0, `the sentinel switched to the old primary ${run.switchedAt - run.startedAt} ms after SENTINEL FAILOVER`);
  await checkNothingLost(t, run, pids);
  await statusNamesMaster(t, group.primary.port);
  await subscriptionsOn(t, group.primary.port);
});
