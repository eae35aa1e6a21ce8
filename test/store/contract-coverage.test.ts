// The contract suite covers the whole Store interface: read from the TypeScript source of shared/store/index.ts,
// every repository of `Store` has a contract file (test/store/contract/<the module its interface comes from>.ts)
// and every method of its interface is called as `<repository>.<method>(` somewhere in the contract files, so a
// repository or method added without a contract case fails here, by name.
import t from 'tap';
import ts from 'typescript';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STORE_DIR = join(root, 'shared', 'store');
const CONTRACT_DIR = join(root, 'test', 'store', 'contract');

/** Repositories excused from the check: none. Kept as a set so an exception, were one ever needed, is named here. */
const PENDING = new Set<string>();

interface Repository {
  /** The Store's property, e.g. `sessions`. */
  property: string;
  /** The interface's name, e.g. `SessionRepository`. */
  type: string;
  /** The module that declares it, without extension, e.g. `users`. */
  module: string;
  methods: string[];
}

const parse = (path: string): ts.SourceFile => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);

/** Where each imported type name comes from in a file: name -> module without extension. */
function importedTypes(source: ts.SourceFile): Map<string, string> {
  const from = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const module = statement.moduleSpecifier.text.replace(/^\.\//, '').replace(/\.js$/, '');
    for (const element of bindings.elements) from.set(element.name.text, module);
  }
  return from;
}

function interfaceOf(source: ts.SourceFile, name: string): ts.InterfaceDeclaration {
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found) throw new Error(`${source.fileName} declares no interface ${name}`);
  return found;
}

/** The names of an interface's methods and function-typed properties. */
function methodsOf(declaration: ts.InterfaceDeclaration): string[] {
  return declaration.members.flatMap((member) => {
    if (!member.name || !ts.isIdentifier(member.name)) return [];
    const callable = ts.isMethodSignature(member) || (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));
    return callable ? [member.name.text] : [];
  });
}

/** The repositories of `Store`: its readonly properties typed by an interface imported from a sibling module. */
function storeRepositories(): Repository[] {
  const index = parse(join(STORE_DIR, 'index.ts'));
  const imports = importedTypes(index);
  return interfaceOf(index, 'Store').members.flatMap((member) => {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type) || !ts.isIdentifier(member.name)) return [];
    const type = member.type.typeName.getText(index);
    const module = imports.get(type);
    if (!module) throw new Error(`Store.${member.name.text}: ${type} is not imported by shared/store/index.ts`);
    const methods = methodsOf(interfaceOf(parse(join(STORE_DIR, `${module}.ts`)), type));
    return [{ property: member.name.text, type, module, methods }];
  });
}

/** Every `<a>.<b>(` call of the contract files, as `a.b`: a repository's method called through the Store. */
function contractCalls(): Set<string> {
  const calls = new Set<string>();
  for (const name of readdirSync(CONTRACT_DIR).filter((n) => n.endsWith('.ts'))) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const target = node.expression.expression;
        if (ts.isPropertyAccessExpression(target)) calls.add(`${target.name.text}.${node.expression.name.text}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(join(CONTRACT_DIR, name)));
  }
  return calls;
}

const repositories = storeRepositories();

t.test('the Store interface is read from its source: its repositories and their methods are found', async (t) => {
  t.ok(repositories.length >= 27, `${repositories.length} repositories`);
  const sessions = repositories.find((r) => r.property === 'sessions');
  t.match(sessions, { type: 'SessionRepository', module: 'users' });
  t.ok(sessions?.methods.includes('removeForUser'));
});

t.test('every repository of the Store has a contract file in test/store/contract/', async (t) => {
  const missing = repositories.filter((r) => !PENDING.has(r.property) && !existsSync(join(CONTRACT_DIR, `${r.module}.ts`)));
  t.same(
    missing.map((r) => `${r.property} (${r.type}): test/store/contract/${r.module}.ts`),
    [],
    'repositories without a contract file',
  );
  const registered = readFileSync(join(root, 'test', 'store', 'contract.ts'), 'utf8');
  const unregistered = repositories.filter((r) => !PENDING.has(r.property) && !registered.includes(`'./contract/${r.module}.js'`));
  t.same(
    unregistered.map((r) => `${r.property}: ./contract/${r.module}.js`),
    [],
    'contract files that test/store/contract.ts does not run',
  );
});

t.test('every method of every repository is called in a contract check', async (t) => {
  const calls = contractCalls();
  const missing = repositories
    .filter((r) => !PENDING.has(r.property))
    .flatMap((r) => r.methods.filter((m) => !calls.has(`${r.property}.${m}`)).map((m) => `store.${r.property}.${m}`));
  t.same(missing, [], 'repository methods no contract check calls');
});

t.test('the pending list names only repositories the Store has', async (t) => {
  const properties = new Set(repositories.map((r) => r.property));
  t.same(
    [...PENDING].filter((p) => !properties.has(p)),
    [],
  );
});
