// The guard of every migration run: a database that a newer release migrated (an upgrade rolled back onto the
// old release) is refused at start, and left as it is.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { MIGRATIONS } from '../../shared/store/sqlite/migrations.js';
import { openStore } from '../../shared/store/index.js';

const NOW = '2026-01-01T10:00:00.000Z';

t.test('a release refuses to start on a database a newer release migrated, and changes nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-newer-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await openStore(dir);
  await first.close();
  const newer = MIGRATIONS[MIGRATIONS.length - 1]!.version + 1;
  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  await sql.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [newer, 'from a newer release', NOW]);
  await t.rejects(openStore(dir), new RegExp(`schema version ${newer}, newer than this release's ${newer - 1}`));
  t.same(await sql.all('SELECT MAX(version) AS v FROM schema_migrations'), [{ v: newer }]);
});
