// The API's one HTTP front, checked on its imports: the REST interfaces (api/http) and the pages (api/web) share
// what both need (the context, the request pipeline, session credentials, error mapping, paging) through
// api/pipeline and api/presenters, never through each other; the front that mounts them (api/server.ts) sits
// above all of them.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file imports (static, dynamic, type-only and re-exports), as a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((s) => posix.normalize(posix.join(posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** The folders of the API's HTTP front, and the folder each may import among them. */
const FOLDERS = ['api/http', 'api/web', 'api/pipeline', 'api/presenters'] as const;
type Folder = (typeof FOLDERS)[number];
const MAY_IMPORT: Readonly<Record<Folder, readonly Folder[]>> = {
  'api/http': ['api/pipeline', 'api/presenters'],
  'api/web': ['api/pipeline', 'api/presenters'],
  'api/presenters': ['api/pipeline'],
  'api/pipeline': [],
};

const folderOf = (path: string): Folder | undefined => FOLDERS.find((f) => path.startsWith(`${f}/`));

/** Each edge between two folders of the front, with the files that make it. */
function edges(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of FOLDERS.flatMap((f) => sourceFiles(f))) {
    for (const target of importsOf(file)) {
      const from = folderOf(file)!;
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      const key = `${from} -> ${to}`;
      found.set(key, [...(found.get(key) ?? []), `${file} imports ${target}`]);
    }
  }
  return found;
}

t.test('the scan finds the files of the front and reads their imports (the server is seen mounting the pages and /v2)', async (t) => {
  for (const folder of FOLDERS) t.ok(sourceFiles(folder).length > 0, `${folder} has source files`);
  t.ok(importsOf('api/server.ts').includes('api/web/index.ts'), 'the front is seen mounting the pages');
  t.ok(importsOf('api/server.ts').includes('api/http/admin/group.ts'), 'and the /v2 admin group');
});

t.test('api/http and api/web do not import each other, in either direction', async (t) => {
  const all = edges();
  t.same(all.get('api/web -> api/http') ?? [], [], 'the pages import nothing of the REST interfaces');
  t.same(all.get('api/http -> api/web') ?? [], [], 'the REST interfaces import nothing of the pages');
});

t.test('no page imports a route file of api/http', async (t) => {
  const routeFiles = sourceFiles('api/web').flatMap((file) =>
    importsOf(file)
      .filter((target) => target.startsWith('api/http/') && /(?:-routes|\/routes|\/group)\.ts$/.test(target))
      .map((target) => `${file} imports ${target}`),
  );
  t.same(routeFiles, []);
});

t.test('the shared modules sit below both fronts: no folder of the front imports one above it, so there is no cycle', async (t) => {
  const violations: string[] = [];
  for (const [edge, where] of edges()) {
    const [from, to] = edge.split(' -> ') as [Folder, Folder];
    if (!MAY_IMPORT[from].includes(to)) violations.push(...where);
  }
  t.same(violations, []);
});

t.test('the API process mounts the fronts: nothing under api/http, api/web or api/pipeline imports the server', async (t) => {
  const importers = FOLDERS.flatMap((f) => sourceFiles(f)).filter((file) => importsOf(file).includes('api/server.ts'));
  t.same(importers, []);
});

t.test('the API port has one dispatcher: only api/server.ts makes an HTTP server, and it hands every request to its app', async (t) => {
  const servers = sourceFiles('api').filter((file) => /\bcreateServer\(/.test(readFileSync(join(root, file), 'utf8')));
  t.same(servers, ['api/server.ts']);
  const front = readFileSync(join(root, 'api/server.ts'), 'utf8');
  t.match(front, /createServer\(\(req, res\) => void app\.handler\(req as Request, res as Response\)\)/, 'nothing is dispatched by hand before the app');
});

t.test('the pages run on the pipeline, not on a lifecycle of their own', async (t) => {
  const group = readFileSync(join(root, 'api/web/group.ts'), 'utf8');
  t.match(group, /runCall\(ctx, pageGroup,/, 'a page request runs through runCall with the pages’ route group');
  t.notOk(sourceFiles('api/web').includes('api/web/runner.ts'), 'no page runner beside it');
});
