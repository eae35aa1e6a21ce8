// The shape of the code, checked: two processes (api/, mta/) over the kernel they share (shared/), every arrow
// pointing down. api/ and mta/ never import each other and shared/ imports neither; the store is reached only
// through the core (and the queue and intake beneath it); only the store opens its engines; SQL is written only in
// the engines; no folder cycle. eslint.config.js says the same import rules file by file, as you type.
import t from 'tap';
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

type Rule = 'processes' | 'store' | 'engine' | 'sql' | 'cycles';

/** Folders that may import the store: the core, the queue and intake it drives, the runtime that opens it, and itself. */
const STORE_USERS = ['shared/core', 'shared/queue', 'shared/intake', 'shared/runtime', 'shared/store'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === 'fixtures' ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const parse = (file: string) => ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);

interface Import {
  file: string;
  /** The imported file, from the repository's root (`shared/store/index.ts`). */
  target: string;
}

/** Every relative import of a file (static, `export … from` and `import()`), type-only ones too. */
function importsOf(file: string): Import[] {
  const found: Import[] = [];
  const add = (spec: ts.Node | undefined) => {
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) {
      found.push({ file, target: posix.normalize(posix.join(posix.dirname(file), spec.text)).replace(/\.js$/, '.ts') });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return found;
}

/** The folder a file counts in: api/<x>, mta/<x>, shared/<x>; a process's own files (api/main.ts) are `api` or `mta`; the kernel files shared/*.ts are one folder, `shared/*`. */
function folderOf(path: string): string {
  const [top, second, ...rest] = path.split('/');
  if (rest.length === 0) return top === 'shared' ? 'shared/*' : top!;
  return `${top}/${second}`;
}

const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
const processOf = (path: string) => path.split('/')[0]!;

/** The storage engines: the only folders that write SQL, opened by shared/store/ alone. */
const ENGINES = ['shared/store/sqlite', 'shared/store/postgres'];
const inEngine = (path: string) => ENGINES.some((engine) => under(path, engine));

/** What one import breaks, besides cycles: the rules by name. */
function brokenBy({ file, target }: Import): Array<[Rule, string]> {
  const broken: Array<[Rule, string]> = [];
  const [from, to] = [processOf(file), processOf(target)];
  if (from !== to && ['api', 'mta', 'shared'].includes(from) && (to === 'api' || to === 'mta')) broken.push(['processes', `${from}/ may not import ${to}/`]);
  if (under(target, 'shared/store') && !STORE_USERS.some((f) => under(file, f)))
    broken.push(['store', 'only shared/core (and the queue, intake and runtime beneath it) reaches the store']);
  if (inEngine(target) && !under(file, 'shared/store')) broken.push(['engine', 'only shared/store/ opens its engines']);
  return broken;
}

/** Each import that breaks a rule, named by file, import and rule. */
function importViolations(imports: readonly Import[]): Array<{ rule: Rule; file: string; line: string }> {
  return imports.flatMap((i) => brokenBy(i).map(([rule, why]) => ({ rule, file: i.file, line: `${i.file} imports ${i.target}: ${why}` })));
}

/** Strongly connected sets of folders (Tarjan), of more than one folder: each is a cycle. */
function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const sets: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      set.push(w);
    } while (w !== v);
    if (set.length > 1) sets.push(set.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return sets;
}

/** Each import between two folders of one cycle, named by file and import. */
function cycleViolations(imports: readonly Import[]): Array<{ file: string; line: string }> {
  const counted = imports.filter((i) => folderOf(i.file) !== folderOf(i.target));
  const edges = new Map<string, Set<string>>();
  for (const i of counted) edges.set(folderOf(i.file), (edges.get(folderOf(i.file)) ?? new Set()).add(folderOf(i.target)));
  return cyclesOf(edges).flatMap((cycle) =>
    counted
      .filter((i) => cycle.includes(folderOf(i.file)) && cycle.includes(folderOf(i.target)))
      .map((i) => ({ file: i.file, line: `${i.file} imports ${i.target}: ${folderOf(i.file)} → ${folderOf(i.target)} closes a cycle of ${cycle.join(', ')}` })),
  );
}

/** SQL statements as an engine writes them (keywords in capitals), not English words in prose. */
const SQL = /\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|TRIGGER))\b/;

/** The string literals of a file (template literals with their placeholders as `${}`) that hold SQL. */
function sqlIn(file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('${}');
    if (text !== undefined && SQL.test(text)) found.push(text.replace(/\s+/g, ' ').trim().slice(0, 60));
    if (text === undefined || !ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else node.templateSpans.forEach((s) => ts.forEachChild(s.expression, visit));
  };
  visit(parse(file));
  return found;
}

const product = ['api', 'mta', 'shared'].flatMap(sourceFiles);
const productImports = product.flatMap(importsOf);
/**
 * Where SQL may be besides the engines: the engines' own tests (test/store/); their helper that makes a database
 * as an older release left it (migrations up to a version, recorded as migrate() records them); and this file,
 * whose checks below hold SQL on purpose.
 */
const SQL_ALLOWED = (f: string) => inEngine(f) || under(f, 'test/store') || f === 'test/architecture.test.ts';
const sqlScanned = [...product, ...sourceFiles('bench'), ...sourceFiles('test')].filter((f) => !SQL_ALLOWED(f));

const linesOf = (violations: ReadonlyArray<{ rule?: Rule; line: string }>, rule?: Rule) =>
  violations.filter((v) => rule === undefined || v.rule === rule).map((v) => v.line);

t.test('api/ never imports mta/, mta/ never imports api/, and shared/ imports neither', async (t) => {
  t.same(linesOf(importViolations(productImports), 'processes'), [], 'no import across the processes, none up from the kernel');
});

t.test('api/ and mta/ reach the store only through shared/core', async (t) => {
  t.same(linesOf(importViolations(productImports), 'store'), [], `only ${STORE_USERS.join(', ')} import shared/store/`);
});

/** Tests and benchmarks, but for the engines' own tests (test/store/): they reach the store by its interface too. */
const testAndBenchImports = [...sourceFiles('bench'), ...sourceFiles('test')].filter((f) => !under(f, 'test/store')).flatMap(importsOf);

t.test('nothing outside shared/store/ imports its engines (shared/store/sqlite/, shared/store/postgres/), tests and benches included', async (t) => {
  t.same(linesOf(importViolations(productImports), 'engine'), [], 'the engines are opened by the store alone');
  t.same(linesOf(importViolations(testAndBenchImports), 'engine'), [], 'tests and benches open it through shared/store/ as well');
});

t.test('no SQL outside shared/store/sqlite/ and shared/store/postgres/, tests and benches included (test/store/ tests the engines)', async (t) => {
  const found = sqlScanned.flatMap((f) => sqlIn(f).map((sql) => `${f}: "${sql}"`));
  t.same(found, [], 'every SQL statement is written in an engine');
});

t.test('no folder imports, directly or not, a folder that imports it', async (t) => {
  t.same(linesOf(cycleViolations(productImports)), [], 'folders: api/<x>, mta/<x>, shared/<x>, and the kernel files shared/*.ts as one');
});

t.test('the checks catch what they are for', async (t) => {
  const seen = (file: string, target: string) => importViolations([{ file, target }]).map((v) => v.rule);
  t.same(seen('api/http/x.ts', 'mta/main.ts'), ['processes']);
  t.same(seen('mta/delivery/x.ts', 'api/billing/stripe.ts'), ['processes']);
  t.same(seen('shared/core/x.ts', 'mta/verification/verify-domains.ts'), ['processes']);
  t.same(seen('mta/smtp/x.ts', 'shared/store/index.ts'), ['store']);
  t.same(seen('shared/core/x.ts', 'shared/store/sqlite/queue.ts'), ['engine']);
  t.same(seen('shared/core/x.ts', 'shared/store/postgres/queue.ts'), ['engine']);
  t.same(seen('shared/queue/x.ts', 'shared/store/postgres/sql.ts'), ['engine'], 'neither engine, even from a user of the store');
  t.same(seen('shared/core/x.ts', 'shared/store/index.ts'), [], 'the core may');
  t.same(seen('shared/store/index.ts', 'shared/store/sqlite/open.ts'), [], 'and the store opens its engine');
  const cycle = cycleViolations([
    { file: 'shared/a.ts', target: 'shared/domain/b.ts' },
    { file: 'shared/domain/b.ts', target: 'shared/c.ts' },
  ]).map((v) => v.file);
  t.same(cycle, ['shared/a.ts', 'shared/domain/b.ts'], 'the kernel files and shared/domain importing each other');
  t.same(folderOf('shared/config.ts'), 'shared/*');
  t.same(folderOf('api/main.ts'), 'api');
  t.ok(SQL.test("UPDATE recipients SET state = 'sent' WHERE id = ?") && SQL.test('SELECT id\n  FROM teams'), 'statements');
  t.notOk(SQL.test('Select the team from the list') || SQL.test('update the settings'), 'not prose');
});

t.test('every source file opens with a comment line saying its role', async (t) => {
  const missing = [...product, ...sourceFiles('bench'), ...sourceFiles('test')].filter((f) => {
    const lines = readFileSync(join(root, f), 'utf8').split('\n');
    const first = lines[0]!.startsWith('#!') ? lines[1]! : lines[0]!;
    return !/^\/\/ \S/.test(first);
  });
  t.same(missing, [], 'each file starts with `// <its role>`');
});

t.test('the top level is the two processes, their kernel, and what the design card names', async (t) => {
  const top = readdirSync(root).filter((n) => statSync(join(root, n)).isDirectory() && !n.startsWith('.'));
  const known = new Set(['api', 'mta', 'shared', 'config', 'test', 'systemd', 'docs', 'bench', 'scripts', 'node_modules', 'dist', 'data']);
  t.same(
    top.filter((n) => !known.has(n)),
    [],
    'no other folder at the top',
  );
});
