// Redis behind Sentinel, with real processes (dist/): Tern's API and MTA reach Redis through one sentinel
// (TERNMAIL_REDIS_SENTINELS), and the primary is killed while mail is sent over SMTP and HTTP. The sentinel
// promotes the replica; the same processes reconnect to it by themselves, sending resumes, and every message
// that got its 250 or 200 reaches the sink.
import t from 'tap';
import { startSentinelGroup } from './harness/redis-sentinel.js';
import { until } from './harness/wait.js';
import { runCli } from './helpers/cli.js';
import { countSink, httpLoad, waitDelivered, waitSettled } from './helpers/acknowledged-load.js';
import { startDeployment } from './helpers/processes.js';
import { runLoad, simpleMessage, type Ack } from './helpers/smtp-load.js';

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
  t.same(await readyz.json(), { status: 'ok', redis: { mode: 'sentinel', master_group: 'mymaster' } }, 'the mode and the group, no address');
});

t.test('the primary killed while mail is sent: the replica is promoted, sending resumes in the same processes, nothing acknowledged is lost', async (t) => {
  const pids = { api: d.api!.pid, mta: d.mta!.pid };
  let failover: Promise<void> | undefined;
  let killedAt = 0;
  let promotedAt = 0;
  let acked = 0;
  const onAck = () => {
    if (++acked !== KILL_AFTER_ACKS) return;
    killedAt = Date.now();
    failover = group.killPrimary().then(() => void (promotedAt = Date.now()));
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
    httpLoad({ apiUrl: d.apiUrl, key: sender.sendingKey, from: 'app@failover.example.com', first: 10_000, count: HTTP_MESSAGES, concurrency: 3, to, onAck }),
  ]);
  t.ok(failover, 'the primary was killed mid-run');
  await failover;
  t.ok(promotedAt > 0, `the sentinel promoted the replica ${promotedAt - killedAt} ms after the kill`);

  t.same(smtp.unacknowledged, [], 'every SMTP message was eventually acknowledged');
  t.notOk(
    [...smtp.failures.keys()].some((code) => code >= 500),
    `SMTP refusals during the failover were temporary (${JSON.stringify([...smtp.failures])})`,
  );
  t.equal(viaHttp.acks.size, HTTP_MESSAGES, 'every HTTP send was eventually acknowledged');
  const acks: Ack[] = [...smtp.acks.values(), ...viaHttp.acks.values()];
  const afterPromotion = acks.filter((a) => a.at > promotedAt).length;
  t.ok(afterPromotion > 0, `sending resumed after the promotion (${afterPromotion} messages acknowledged after it)`);
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

  const status = await until('ternmail status to name the promoted replica', async () => {
    const r = await runCli(['status', '--json'], d.env);
    return r.json?.redis?.master === `127.0.0.1:${group.replica.port}` ? r : null;
  });
  t.equal(status.json.redis.up, true, 'the new master answers');
});
