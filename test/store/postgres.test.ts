// The repository contract run against the PostgreSQL store, unchanged and whole, each check on a database of its
// own (a copy of a migrated template) in a cluster this file starts.
import t, { type Test } from 'tap';
import { openPostgresStore } from '../../shared/store/postgres/open.js';
import { migratePostgres } from '../../shared/store/postgres/migrate.js';
import { openPostgresTestSupport } from '../../shared/store/postgres/test-support.js';
import { startPostgres } from '../harness/postgres.js';
import { runRepositoryContract } from './contract.js';

const cluster = await startPostgres({ prepareTemplate: async (url) => void (await migratePostgres(url)) });
t.teardown(() => cluster.stop());

runRepositoryContract(t, {
  name: 'PostgreSQL',
  async open(t: Test) {
    const url = await cluster.createDatabase();
    const store = await openPostgresStore(url, { max: 4 });
    const support = await openPostgresTestSupport(url);
    t.teardown(async () => {
      await support.close();
      await store.close();
      await cluster.dropDatabase(url);
    });
    return { store, support };
  },
});
