// `ternmail team suspend` and `team reactivate` run as real processes against a data dir, then the audit log read
// through the core: each is recorded as the dashboard's operator suspension is (before, after, reason), with the
// host's CLI user as the actor, whether the CLI suspends as the platform or as the owner would.
import t from 'tap';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { cleanEnv, runCli, tempHome } from './helpers/cli.js';
import { openStore } from '../shared/store/index.js';
import { AuditLog } from '../shared/core/audit-log.js';
import type { AuditEntry } from '../shared/domain/audit-log.js';

const home = tempHome('tern-cli-audit-');
const env = cleanEnv({ TERNMAIL_DATA_DIR: home.dir, TERNMAIL_CONFIG: home.configFile, TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test' });
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));

const cli = async (...args: string[]) => {
  const res = await runCli(args, env);
  if (res.code !== 0) throw new Error(`ternmail ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return res;
};

/** The team's audit entries, oldest first, as operators read them through the core. */
async function teamEntries(id: number): Promise<AuditEntry[]> {
  const store = await openStore(home.dir);
  try {
    const page = await new AuditLog({ store }).list({ targetKind: 'tenant', targetId: String(id) }, { page: 1, perPage: 50 });
    return page.rows.reverse();
  } finally {
    await store.close();
  }
}

const CLI_ACTOR = { operatorId: null, operatorEmail: `ternmail CLI (${userInfo().username})` };

t.test('a CLI suspension and reactivation are in the audit log with before and after, naming the CLI user', async (t) => {
  const id: number = (await cli('account', 'create', '--name', 'Audited Co')).json.id;
  await cli('team', 'suspend', '--team', String(id), '--by-platform', '--reason', 'Abuse report 42');
  const lift = await cli('team', 'reactivate', '--team', String(id), '--reason', 'cleared after review');
  t.match(lift.json, { id, status: 'active', lifted: { by: 'platform', reason: 'Abuse report 42' } }, 'the command prints what it lifted, as before');

  const [suspended, reactivated, ...more] = await teamEntries(id);
  t.same(more, [], 'one entry each');
  t.match(suspended, {
    ...CLI_ACTOR,
    action: 'tenant.suspend',
    target: { kind: 'tenant', id: String(id) },
    before: { status: 'active', suspended_by: null, suspension_reason: null },
    after: { status: 'suspended', suspended_by: 'platform', suspension_reason: 'Abuse report 42' },
    reason: 'Abuse report 42',
  });
  t.match(reactivated, {
    ...CLI_ACTOR,
    action: 'tenant.reactivate',
    before: { status: 'suspended', suspended_by: 'platform' },
    after: { status: 'active', suspended_by: null, suspension_reason: null },
    reason: 'cleared after review',
  });
});

t.test('a CLI suspension as the owner and a reactivation without a reason are audited too, with the default reasons', async (t) => {
  const id: number = (await cli('account', 'create', '--name', 'Owner-like Co')).json.id;
  const suspend = await cli('team', 'suspend', '--team', String(id));
  t.match(suspend.json, { id, status: 'suspended', suspended_by: 'account', suspension: { by: 'account', reason: 'suspended by the operator' } });
  await cli('team', 'reactivate', '--team', String(id));

  const entries = await teamEntries(id);
  t.match(entries, [
    { ...CLI_ACTOR, action: 'tenant.suspend', after: { status: 'suspended', suspended_by: 'account' }, reason: 'suspended by the operator' },
    { ...CLI_ACTOR, action: 'tenant.reactivate', after: { status: 'active' }, reason: 'reactivated with ternmail team reactivate' },
  ]);
  t.equal(entries.length, 2);
});

t.test('a refused CLI suspension writes no audit entry', async (t) => {
  const id: number = (await cli('account', 'create', '--name', 'Refused Co')).json.id;
  const bad = await runCli(['team', 'suspend', '--team', String(id), '--reason', 'two\nlines'], env);
  t.equal(bad.code, 2, 'a reason with a control character is a usage error');
  const missing = await runCli(['team', 'reactivate', '--team', '777777'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no team 777777/);
  t.same(await teamEntries(id), []);
});
