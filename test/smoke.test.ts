// A first look at the running product: an account reads its own summary with its admin key.
import t from 'tap';
import { startHarness } from './helpers/harness.js';

t.test('a new account reads its own summary with its admin key', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const { id, key } = await h.account();
  const res = await h.request('GET', '/v2/info', { key });
  t.equal(res.status, 200);
  t.equal(res.body.account.id, id);
  t.equal(res.headers.get('x-account-id'), String(id));
});
