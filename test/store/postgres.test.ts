// The repository contract run against the PostgreSQL store, each check on a database of its own (a copy of a
// migrated template) in a cluster this file starts. The engine is being written repository by repository: only
// the groups of POSTGRES_READY run, and the store answers only the repositories it has.
import t, { type Test } from 'tap';
import type { Store } from '../../shared/store/index.js';
import { openPostgresStore, type PostgresRepositories } from '../../shared/store/postgres/open.js';
import { migratePostgres } from '../../shared/store/postgres/migrate.js';
import { openPostgresTestSupport } from '../../shared/store/postgres/test-support.js';
import { startPostgres } from '../harness/postgres.js';
import { runRepositoryContract, type RepositoryKey } from './contract.js';

/** The contract groups the PostgreSQL engine passes: add a group's key once its repositories are in open.ts. */
export const POSTGRES_READY: readonly RepositoryKey[] = [
  'system',
  'audit-log',
  'teams',
  'domains',
  'keys',
  'webhooks',
  'dns-connections',
  'users',
  'login-security',
  'password-resets',
  'invitations',
  'platform-invitations',
  'suppressions',
  'billing',
  'payments',
  'outbox-claims',
  'inbound-reports',
];

/**
 * The engine's repositories as a Store. A repository it does not have yet throws when read, so a check that
 * reaches one fails loudly instead of passing. `then` and symbols answer undefined: awaiting or printing the
 * store (a promise's resolution looks for `then`) must not count as using a repository.
 */
function partialStore(repositories: PostgresRepositories): Store {
  return new Proxy(repositories, {
    get(target, property, receiver) {
      if (typeof property === 'symbol' || property === 'then') return undefined;
      if (!(property in target)) throw new Error(`not on PostgreSQL yet: ${property}`);
      return Reflect.get(target, property, receiver) as unknown;
    },
  }) as unknown as Store;
}

const cluster = await startPostgres({ prepareTemplate: async (url) => void (await migratePostgres(url)) });
t.teardown(() => cluster.stop());

runRepositoryContract(
  t,
  {
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
      return { store: partialStore(store), support };
    },
  },
  POSTGRES_READY,
);
