// The repository contract run against the SQLite store, each check on a database file of its own.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../shared/store/index.js';
import { openTestSupport } from '../../shared/store/sqlite/test-support.js';
import { runRepositoryContract } from './contract.js';

runRepositoryContract(t, {
  name: 'SQLite',
  async open(t: Test) {
    const dir = mkdtempSync(join(tmpdir(), 'tern-contract-'));
    const store = await openStore(dir);
    const support = await openTestSupport(dir);
    t.teardown(async () => {
      await support.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, support };
  },
});
