// The store's test support (aging records, forcing states) for a test file, from the engine the tests run on.
import type { Test } from 'tap';
import type { StoreTestSupport } from '../../shared/store/test-support.js';
import { openTestSupport } from '../harness/test-engine.js';

/** Test support on the store of `dataDir` (on the engine the tests run on), closed when `t` ends. */
export async function storeSupport(t: Test, dataDir: string): Promise<StoreTestSupport> {
  const support = await openTestSupport(dataDir);
  t.teardown(() => support.close());
  return support;
}
