// Rows leave the SQLite store only after a check against their columns' schema: a damaged row is an error
// naming what failed to decode, never a wrong value handed on.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../shared/store/index.js';
import { openDatabase } from '../../shared/store/sqlite/open.js';
import { StoreDecodeError } from '../../shared/store/sqlite/decode.js';

t.test('a stored row that does not match its columns’ schema is refused with StoreDecodeError', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-decode-'));
  const store = await openStore(dir);
  const sql = await openDatabase(dir);
  t.teardown(async () => {
    await sql.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const team = await store.teams.createAccount({ name: 'a', credits: 1, limitPerSecond: 1, planType: 'free', backendRegion: 'eu' });
  const hook = await store.webhooks.create(team.id, { title: 'h', url: 'https://x.test/', events: ['bounced'], includeMessage: false }, 'sealed', 5);
  if (hook === 'limit_reached') throw new Error('under the limit');

  await sql.run('UPDATE teams SET credit_balance = ? WHERE id = ?', ['plenty', team.id]);
  await t.rejects(store.teams.get(team.id), StoreDecodeError, 'a text where a number belongs');
  await t.rejects(store.teams.get(team.id), /^team: a stored value does not decode: \/credit_balance/, 'the error names the row and the column');

  await sql.run(`UPDATE webhooks SET events = '["bounced", "opened"]' WHERE id = ?`, [hook.id]);
  await t.rejects(store.webhooks.get(hook.id, team.id), /^webhook events: a stored value does not decode/, 'an event no one knows, inside JSON');
  await sql.run(`UPDATE webhooks SET events = 'not json' WHERE id = ?`, [hook.id]);
  await t.rejects(store.webhooks.get(hook.id, team.id), StoreDecodeError, 'text that is not JSON');
  await sql.run(`UPDATE webhooks SET events = '["bounced"]', include_message = 2 WHERE id = ?`, [hook.id]);
  await t.rejects(store.webhooks.get(hook.id, team.id), /include_message/, 'a flag that is neither 0 nor 1');
});
