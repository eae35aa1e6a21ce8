// The shape of the code, checked: which folder may import which (interfaces reach the store and the MTA's
// engines only through the core), SQL only in the store's engine folder, and a role line atop every file.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Folders of the product, from the outside in. A folder may import itself and what its rule lists. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Process entry points and the operator's command: they wire everything.
  bin: ['*'],
  // Interfaces: they translate, and reach everything else through the core.
  http: ['core', 'domain', 'shared'],
  smtp: ['core', 'domain', 'shared'],
  // The web pages: they translate too, with the HTTP interface's helpers (its context, cookies, request ids).
  web: ['core', 'domain', 'shared', 'http'],
  // The use cases.
  core: ['intake', 'queue', 'verification', 'dns-providers', 'billing', 'store', 'domain', 'shared'],
  // The MTA's engines.
  intake: ['queue', 'store', 'domain', 'shared'],
  queue: ['store', 'domain', 'shared'],
  delivery: ['queue', 'feedback', 'store', 'domain', 'shared'],
  feedback: ['delivery', 'store', 'domain', 'shared'],
  verification: ['store', 'domain', 'shared'],
  // DNS hosting providers (Cloudflare, ...) behind one interface.
  'dns-providers': ['domain', 'shared'],
  // Payment providers and the invoice document, behind the core's billing use cases.
  billing: ['domain', 'shared'],
  // Repositories, and the one engine behind them.
  store: ['domain', 'shared'],
  'store/sqlite': ['store', 'domain', 'shared'],
  domain: ['shared'],
  shared: [],
};

/** Named exceptions, each with its reason. */
const ALLOWED: ReadonlyArray<[from: string, to: string, why: string]> = [
  ['store/index.ts', 'store/sqlite', 'openStore wires the embedded engine behind the repository interfaces'],
  ['shared/runtime.ts', 'store', 'the runtime is what a process opened, the store among it'],
  ['shared/key-cache.ts', 'store', 'the key cache resolves keys through the key repository'],
  ['shared/key-cache.ts', 'domain', 'and caches the key records it returns'],
  ['http/server.ts', 'web', 'the server mounts the web pages next to /api; nothing else in http/ imports web/'],
];

const PRODUCT = Object.keys(MAY_IMPORT);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The folder rule a file falls under: the longest listed prefix. */
function folderOf(path: string): string | undefined {
  return PRODUCT.filter((f) => path.startsWith(`${f}/`)).sort((a, b) => b.length - a.length)[0];
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((s) => posix.normalize(posix.join(posix.dirname(file), s)));
}

const files = PRODUCT.filter((f) => !f.includes('/')).flatMap((f) => sourceFiles(f));

t.test('interfaces reach the store and the engines only through the core; no layer imports one above it', async (t) => {
  const violations: string[] = [];
  for (const file of files) {
    const from = folderOf(file)!;
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === undefined || to === from || MAY_IMPORT[from]!.includes('*') || MAY_IMPORT[from]!.includes(to)) continue;
      if (ALLOWED.some(([f, dest]) => f === file && to === dest)) continue;
      violations.push(`${file} imports ${target} (${from} may not import ${to})`);
    }
  }
  t.same(violations, [], 'every import follows the folder rules');
});

t.test('the HTTP and SMTP interfaces never import each other, nor the MTA side', async (t) => {
  for (const file of files.filter((f) => f.startsWith('http/') || f.startsWith('smtp/'))) {
    const bad = importsOf(file).filter(
      (target) => /^(smtp|http|intake|queue|delivery|feedback|verification|store)\//.test(target) && folderOf(target) !== folderOf(file),
    );
    t.same(bad, [], `${file} imports no other interface and no engine`);
  }
});

/** SQL statements as the engine writes them (keywords in capitals), not English words in comments. */
const SQL = /\b(SELECT [^'`]*\bFROM\b|INSERT INTO\b|UPDATE \w+ SET\b|DELETE FROM\b|CREATE (TABLE|INDEX|TRIGGER)\b)/;

t.test('SQL is written only in the store engine folder (store/sqlite)', async (t) => {
  const outside = [...files, ...sourceFiles('bench'), ...sourceFiles('harness')].filter((f) => !f.startsWith('store/sqlite/'));
  const withSql = outside.filter((f) => SQL.test(readFileSync(join(root, f), 'utf8')));
  t.same(withSql, [], 'no SQL outside store/sqlite');
});

t.test('tests outside the store contract suite do not run SQL', async (t) => {
  const tests = sourceFiles('test').filter((f) => !f.startsWith('test/store/') && f !== 'test/architecture.test.ts');
  const withSql = tests.filter((f) => /\bstore\.sql\b|\.sql\.(run|get|all|exec)\(/.test(readFileSync(join(root, f), 'utf8')));
  t.same(withSql, [], 'no test reaches SQL through the store');
});

t.test('every source file opens with a comment line saying its role', async (t) => {
  const tests = sourceFiles('test').filter((f) => !f.startsWith('test/fixtures/'));
  const missing = [...files, ...sourceFiles('bench'), ...sourceFiles('harness'), ...tests].filter((f) => {
    const lines = readFileSync(join(root, f), 'utf8').split('\n');
    const first = lines[0]!.startsWith('#!') ? lines[1]! : lines[0]!;
    return !/^\/\/ \S/.test(first);
  });
  t.same(missing, [], 'each file starts with `// <its role>`');
});

t.test('the folder rules name every product folder that exists', async (t) => {
  const top = readdirSync(root).filter((n) => statSync(join(root, n)).isDirectory() && !n.startsWith('.'));
  const known = new Set([...PRODUCT, 'test', 'bench', 'harness', 'scripts', 'types', 'config', 'docs', 'systemd', 'node_modules', 'dist']);
  t.same(
    top.filter((n) => !known.has(n)),
    [],
    'no folder escapes the rules',
  );
  t.ok(relative(root, root) === '', 'ran from the repository');
});
