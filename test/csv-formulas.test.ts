// Every CSV Tern writes neutralises spreadsheet formulas (OWASP's CSV injection advice): a cell starting with
// `=`, `+`, `-`, `@`, a tab or a carriage return is exported with a single quote before it, so a spreadsheet
// shows it as text instead of running it. Addresses starting so are valid emails, so they do reach the
// suppressions export (issue 22, item 3).
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession } from './helpers/dashboard-session.js';
import { page, signInOverHttp } from './helpers/web-pages.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h?.close());

/** Valid addresses (lower case, as stored) that start a formula; `@`, a tab or a CR cannot start one, so reasons carry those. */
const ADDRESSES = ["=cmd|'/ccalc'!a0@example.com", '+1+cmd@example.com', "-2+3+cmd|'/ccalc'!a0@example.com"];
const REASONS = ["@SUM(1+1)*cmd|'/ccalc'!A0", '\t=1+2', '\r=1+2', '=HYPERLINK("http://evil.example")', '+1', '-1'];

/** The CSV's records (RFC 4180, CRLF between them) with each field's first character, quotes taken off. */
const firstCharacters = (csv: string): string[][] =>
  csv
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split(',').map((field) => field.replace(/^"/, '').charAt(0)));

t.test('the suppressions export, REST and page alike, prefixes every formula-style cell with a quote so a spreadsheet shows it as text', async (t) => {
  const account = await h.account();
  for (const [i, email] of ADDRESSES.entries()) await h.rt.store.suppressions.add(account.id, { email, status: 'bounced', reason: REASONS[i]!, messageId: null });
  for (const [i, reason] of REASONS.slice(ADDRESSES.length).entries())
    await h.rt.store.suppressions.add(account.id, { email: `r${i}@example.com`, status: 'bounced', reason, messageId: '-m' });
  await h.rt.store.suppressions.add(account.id, { email: 'plain@example.com', status: 'bounced', reason: '550 no such user', messageId: null });
  const email = await userOn(h, account.id, 'owner');
  const rest = await h.request('GET', '/api/tern/v2/suppressions/export', withSession(await logIn(h, email)));
  const web = await page(h, 'GET', '/suppressions/export', { cookie: await signInOverHttp(h, email) });
  for (const [via, reply] of [
    ['REST', rest],
    ['page', web],
  ] as const) {
    t.equal(reply.status, 200, `${via}: ${reply.text}`);
    for (const address of ADDRESSES) t.ok(reply.text.includes(`\r\n'${address},bounced,`), `${via}: ${address} is exported as '${address}`);
    t.ok(reply.text.includes(`\r\n"'\r=1+2"`) || reply.text.includes(`,"'\r=1+2",`), `${via}: a CR start is prefixed too`);
    t.ok(reply.text.includes(`,'\t=1+2,`), `${via}: a tab start is prefixed`);
    t.ok(reply.text.includes(`,"'=HYPERLINK(""http://evil.example"")",`), `${via}: a quoted field is prefixed inside its quotes`);
    t.ok(reply.text.includes(`,'-m,`), `${via}: every column, the message id too`);
    t.ok(reply.text.includes('\r\nplain@example.com,bounced,550 no such user,,'), `${via}: a plain cell is unchanged`);
    for (const record of firstCharacters(reply.text))
      t.notOk(
        record.some((c) => /[=+\-@\t\r]/.test(c)),
        `${via}: no cell starts a formula`,
      );
  }
});

/** The product's TypeScript files (not its tests, nor node_modules or dist). */
function productFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (['node_modules', 'dist', 'test', '.git'].includes(name)) return [];
    if (statSync(path).isDirectory()) return productFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

t.test('every CSV is written through shared/csv.ts: nothing else imports csv-stringify', async (t) => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const importing = productFiles(root)
    .filter((f) => /from ['"]csv-stringify(\/[^'"]*)?['"]/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(root, f));
  t.same(importing, ['shared/csv.ts'], 'one place, where the formula cast is');
});
