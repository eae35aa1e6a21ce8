// The contract of SystemRepository: a migrated store says its schema version and its engine's version.
import { check, type ContractCheck } from './fixtures.js';

export const systemChecks: ContractCheck[] = [
  check('a migrated store says a schema version of at least one and names its engine with a version', async (t, engine) => {
    const { store } = await engine.open(t);
    const version = await store.system.schemaVersion();
    t.ok(Number.isInteger(version) && version >= 1, `schema version ${version}`);
    t.match(await store.system.engineVersion(), /^\S+ \d+(\.\d+)*/, 'e.g. "SQLite 3.45.1"');
  }),
];
