// Idempotency-Key around a send when Redis goes away after the message is committed (a failover, an outage): the
// send's answer stands. Only the remembered reply is lost, never the 200 of a message that is in the store.
import t from 'tap';
import type { Call } from '../api/pipeline/pipeline.js';
import type { GroupRoute } from '../api/pipeline/route.js';
import type { Sender } from '../api/http/send/auth.js';
import { idempotent } from '../api/http/send/idempotency.js';
import { createLogger } from '../shared/log.js';
import { connectRedis } from '../shared/redis.js';
import { Idempotency } from '../shared/core/sending/idempotency.js';
import type { Store } from '../shared/store/index.js';
import { startRedis } from './helpers/redis.js';

t.test('a send that committed answers its 200 even when Redis is lost before its Idempotency-Key reply is stored', async (t) => {
  const server = await startRedis({ appendOnly: false });
  t.teardown(() => server.stop());
  const redis = connectRedis(server.url, 'idempotency-loss-test');
  redis.on('error', () => undefined);
  t.teardown(() => redis.disconnect());
  // The replies in Redis, as on SQLite by default (the store is only asked its engine).
  const idempotency = new Idempotency({ config: { idempotency: { store: null } }, store: { system: { engine: 'sqlite' } } as unknown as Store, redis });
  // The parts of a sending call that `idempotent` reads: the core's idempotency, the key, the team, the body, the log.
  const call = {
    ctx: { core: { idempotency } },
    req: { headers: { 'idempotency-key': 'order-1' } },
    caller: { team: { id: 7 } },
    body: { to: [{ email: 'rcpt@dest.test' }] },
    log: createLogger('test', 'silent'),
  } as unknown as Call<Sender, GroupRoute<Sender>>;
  let handled = 0;
  const reply = await idempotent(call, async () => {
    handled++;
    // The message is committed here; then Redis goes, before the reply can be remembered.
    await server.stop();
    return { status: 200, body: { message_id: 'committed-1' } };
  });
  t.equal(handled, 1, 'the send ran once');
  t.equal(reply.status, 200, 'its 200 is answered');
  t.same(reply.body, { message_id: 'committed-1' }, 'with the id of the committed message');
});
