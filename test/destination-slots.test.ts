// Per-destination connection slots shared through Redis (mta/delivery/destination-slots.ts): the cap holds across
// holders on one Redis, a killed holder's slots come free after the lease, a live one keeps its slots by renewing
// them, and without Redis a holder falls back to its local cap, saying so once.
import t from 'tap';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { DestinationSlots } from '../mta/delivery/destination-slots.js';
import { createLogger } from '../shared/log.js';
import { projectPath } from '../shared/paths.js';
import { redisKeys } from '../shared/redis-keys.js';
import { startRedis } from './helpers/redis.js';
import { pause } from './harness/wait.js';

const silent = createLogger('test', 'silent');

async function connected(url: string): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  await redis.ping();
  return redis;
}

t.test('two holders on one Redis never hold more slots of a destination together than its limit', async (t) => {
  const server = await startRedis({ appendOnly: false });
  const clients = [await connected(server.url), await connected(server.url)];
  const holders = clients.map((redis) => new DestinationSlots({ redis, log: silent, leaseMs: 10_000 }));
  t.teardown(async () => {
    clients.forEach((c) => c.disconnect());
    await server.stop();
  });
  let open = 0;
  let most = 0;
  let refused = 0;
  // 8 workers per holder, each wanting 5 connections of 20 ms to dest.test, limited to 3 at a time overall.
  const worker = async (holder: DestinationSlots) => {
    for (let done = 0; done < 5;) {
      const slot = await holder.take('dest.test', 3);
      if (!slot) {
        refused++;
        await pause(5);
        continue;
      }
      t.ok(slot.shared, 'a slot from Redis');
      most = Math.max(most, ++open);
      await pause(20);
      open--;
      await holder.release(slot);
      done++;
    }
  };
  await Promise.all(holders.flatMap((h) => Array.from({ length: 8 }, () => worker(h))));
  t.equal(most, 3, 'at most 3 connections at once across both holders, and 3 were reached');
  t.ok(refused > 0, 'holders were turned away while the destination was full');
  t.equal(await clients[0]!.zcard(redisKeys.destinationSlots('dest.test')), 0, 'every slot was given back');
  t.ok((await holders[0]!.take('other.test', 1))?.shared, 'another destination has its own slots');
});

t.test('while another holder waits for a destination, a holder that has its share takes no more of its slots', async (t) => {
  const server = await startRedis({ appendOnly: false });
  const clients = [await connected(server.url), await connected(server.url)];
  const [first, second] = clients.map((redis) => new DestinationSlots({ redis, log: silent, leaseMs: 10_000 }));
  t.teardown(async () => {
    clients.forEach((c) => c.disconnect());
    await server.stop();
  });
  // As the scheduler does: a connection of 20 ms, then at once the next one; a holder turned away asks again 250 ms later.
  const connections = new Map<DestinationSlots, number>([
    [first!, 0],
    [second!, 0],
  ]);
  let stopAt = Infinity;
  const worker = async (holder: DestinationSlots) => {
    while (Date.now() < stopAt) {
      const slot = await holder.take('dest.test', 4);
      if (!slot) {
        await pause(250);
        continue;
      }
      await pause(20);
      await holder.release(slot);
      connections.set(holder, connections.get(holder)! + 1);
    }
  };
  const firstWorkers = Array.from({ length: 8 }, () => worker(first!));
  await pause(300); // the first holder has taken every slot
  connections.set(first!, 0);
  stopAt = Date.now() + 2000;
  await Promise.all([...firstWorkers, ...Array.from({ length: 8 }, () => worker(second!))]);
  const [a, b] = [connections.get(first!)!, connections.get(second!)!];
  t.ok(b >= 0.35 * (a + b), `the holder that came second made a fair part of the connections (${b} of ${a + b})`);
});

t.test('a holder killed with SIGKILL frees its slots once their lease has run out', async (t) => {
  const server = await startRedis({ appendOnly: false });
  const redis = await connected(server.url);
  t.teardown(async () => {
    redis.disconnect();
    await server.stop();
  });
  const module = projectPath('dist', 'mta', 'delivery', 'destination-slots.js');
  const script = `
    import { Redis } from 'ioredis';
    import pino from 'pino';
    const { DestinationSlots } = await import(${JSON.stringify(module)});
    const redis = new Redis(${JSON.stringify(server.url)});
    await redis.ping();
    const slots = new DestinationSlots({ redis, log: pino({ level: 'silent' }), leaseMs: 3000 });
    slots.start();
    const a = await slots.take('dest.test', 2);
    const b = await slots.take('dest.test', 2);
    console.log(a?.shared && b?.shared ? 'held' : 'refused');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: projectPath(), stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  t.equal(line, 'held', 'the other process holds both slots');
  child.kill('SIGKILL');
  const killedAt = Date.now();
  const holder = new DestinationSlots({ redis, log: silent, leaseMs: 3000 });
  t.equal(await holder.take('dest.test', 2), null, 'right after the kill, the destination is still full');
  let slot = null;
  while (!slot && Date.now() - killedAt < 6000) {
    slot = await holder.take('dest.test', 2);
    if (!slot) await pause(100);
  }
  t.ok(slot?.shared, 'a slot comes free within the lease (3 s) of the kill');
});

t.test('a live holder keeps its slots past the lease by renewing them', async (t) => {
  const server = await startRedis({ appendOnly: false });
  const redis = await connected(server.url);
  const live = new DestinationSlots({ redis, log: silent, leaseMs: 1500 });
  live.start();
  t.teardown(async () => {
    await live.stop();
    redis.disconnect();
    await server.stop();
  });
  t.ok(await live.take('dest.test', 1));
  await pause(3500);
  const other = new DestinationSlots({ redis, log: silent, leaseMs: 1500 });
  t.equal(await other.take('dest.test', 1), null, 'more than twice the lease later the slot is still held');
  await live.stop();
  t.ok(await other.take('dest.test', 1), 'and it is free once given back');
});

t.test('without Redis a holder falls back to the local cap, says so once, and shares again when Redis is back', async (t) => {
  const server = await startRedis({ appendOnly: false });
  const redis = await connected(server.url);
  const lines: Array<{ msg: string }> = [];
  const sink = new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as { msg: string }), done()) });
  const holder = new DestinationSlots({ redis, log: createLogger('test', 'info', sink), leaseMs: 5000, timeoutMs: 300 });
  t.teardown(async () => {
    redis.disconnect();
    await server.stop();
  });
  server.process.kill('SIGKILL');
  await pause(200);
  const slots = [await holder.take('dest.test', 1), await holder.take('dest.test', 1), await holder.take('dest.test', 1)];
  t.same(
    slots.map((s) => s?.shared),
    [false, false, false],
    'every take is granted, locally, past the shared limit',
  );
  t.equal(lines.filter((l) => l.msg.startsWith('shared destination limits unavailable')).length, 1, 'the fallback is logged once');
  await server.restart();
  await redis.ping();
  t.ok((await holder.take('dest.test', 1))?.shared, 'shared slots again once Redis answers');
  t.ok(
    lines.some((l) => l.msg === 'shared destination limits back'),
    'and the log says so',
  );
});

t.test('a first take made while the client is pipelining other commands still reaches Redis', async (t) => {
  const server = await startRedis({ appendOnly: false });
  // As the MTA's connection is: commands issued in one turn of the event loop share an automatic pipeline.
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1, enableAutoPipelining: true });
  redis.on('error', () => undefined);
  await redis.ping();
  t.teardown(async () => {
    redis.disconnect();
    await server.stop();
  });
  const holder = new DestinationSlots({ redis, log: silent, leaseMs: 10_000 });
  const busy = redis.get('something-else');
  const slot = await holder.take('dest.test', 1);
  await busy;
  t.match(slot, { domain: 'dest.test', shared: true }, 'a slot from Redis, not the local fallback');
});
