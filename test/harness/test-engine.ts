// The engine the integration tests run Tern on: SQLite in each test's data dir (the default), or, with
// TERN_TEST_ENGINE=postgres, PostgreSQL: one throwaway cluster per test file, started by its first store, and a
// fresh database (a copy of a migrated template) for every data dir, so tests never see each other's rows.
import { openStore, openStoreTestSupport, type Store } from '../../shared/store/index.js';
import type { StoreTestSupport } from '../../shared/store/test-support.js';
import { startPostgres, type TestPostgres } from './postgres.js';

export type TestEngine = 'sqlite' | 'postgres';

export const testEngine: TestEngine = process.env.TERN_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

let cluster: Promise<TestPostgres> | undefined;
/** The database given to each data dir, so that every helper opening "the store of this dir" finds the same one. */
const databases = new Map<string, string>();

async function startCluster(): Promise<TestPostgres> {
  // Migrating the template once (openStore on a URL migrates it) makes every copy start ready.
  const started = startPostgres({ prepareTemplate: async (url) => (await openStore('', url)).close() });
  // The cluster's admin connection would keep the test file's process alive: stop it when the file ends. Tap is
  // loaded only here: the benchmarks share this harness, and tap loaded in their process reports a test of its own.
  const { default: t } = await import('tap');
  t.teardown(async () => (await started).stop());
  return started;
}

/**
 * The database URL for the Tern of `dataDir` (TERNMAIL_DATABASE_URL), made on first call: null on SQLite, where
 * the store is the file in the data dir.
 */
export async function testDatabaseUrl(dataDir: string): Promise<string | null> {
  if (testEngine === 'sqlite') return null;
  const known = databases.get(dataDir);
  if (known !== undefined) return known;
  cluster ??= startCluster();
  const url = await (await cluster).createDatabase();
  databases.set(dataDir, url);
  return url;
}

/** The environment that points a Tern process at the test engine's store of `dataDir` (nothing on SQLite). */
export async function testEngineEnv(dataDir: string): Promise<Record<string, string>> {
  const url = await testDatabaseUrl(dataDir);
  return url === null ? {} : { TERNMAIL_DATABASE_URL: url };
}

/** The store of `dataDir` on the test engine, opened by the test beside whatever Tern runs on it. */
export async function openTestStore(dataDir: string): Promise<Store> {
  return openStore(dataDir, await testDatabaseUrl(dataDir));
}

/** The store's test support on the store of `dataDir`, from the engine the tests run on. */
export async function openTestSupport(dataDir: string): Promise<StoreTestSupport> {
  return openStoreTestSupport(dataDir, await testDatabaseUrl(dataDir));
}
