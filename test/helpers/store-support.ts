// The store's test support (aging records, forcing states) for a test file, from the engine the tests run on.
import type { Test } from 'tap';
import type { StoreTestSupport } from '../../shared/store/test-support.js';
import { openStoreTestSupport } from '../../shared/store/index.js';

/** Test support on the store of `dataDir`, closed when `t` ends. */
export async function storeSupport(t: Test, dataDir: string): Promise<StoreTestSupport> {
  const support = await openStoreTestSupport(dataDir);
  t.teardown(() => support.close());
  return support;
}
