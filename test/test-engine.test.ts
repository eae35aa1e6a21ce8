// TERN_TEST_ENGINE=postgres must move the whole Tern under test, not only the test's own reads: otherwise the
// PostgreSQL pass of the suite would quietly test SQLite again.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDeployment } from './helpers/processes.js';
import { testEngine } from './harness/test-engine.js';
import { storeSupport } from './helpers/store-support.js';

const expected = testEngine === 'postgres' ? /^PostgreSQL \d+/ : /^SQLite \d+/;

t.test('the harness runs Tern on the engine TERN_TEST_ENGINE names, and the test support opens the same store', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  t.match(await h.rt.store.system.engineVersion(), expected);
  const team = await h.account();
  const support = await storeSupport(t, h.dataDir);
  await support.deleteTeam(team.id);
  t.equal(await h.rt.store.teams.get(team.id), undefined, 'a team deleted through the test support is gone for the running Tern');
});

t.test("a deployment's processes and the test's own store are on the engine TERN_TEST_ENGINE names", async (t) => {
  const d = await startDeployment();
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('engine.example.com');
  const store = await d.store();
  t.match(await store.system.engineVersion(), expected);
  t.ok(await store.teams.get(sender.accountId), 'the team the CLI made is in the store the test opens');
});
