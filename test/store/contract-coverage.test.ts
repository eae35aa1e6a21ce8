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
    // The unit of work is not a repository: its row operations are checked below, through the queue module.
    if (type === 'Transaction') return [];
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
  const missing = repositories.filter((r) => !existsSync(join(CONTRACT_DIR, `${r.module}.ts`)));
  t.same(
    missing.map((r) => `${r.property} (${r.type}): test/store/contract/${r.module}.ts`),
    [],
    'repositories without a contract file',
  );
  const registered = readFileSync(join(root, 'test', 'store', 'contract.ts'), 'utf8');
  const unregistered = repositories.filter((r) => !registered.includes(`'./contract/${r.module}.js'`));
  t.same(
    unregistered.map((r) => `${r.property}: ./contract/${r.module}.js`),
    [],
    'contract files that test/store/contract.ts does not run',
  );
});

t.test('every method of every repository is called in a contract check', async (t) => {
  const calls = contractCalls();
  const missing = repositories.flatMap((r) => r.methods.filter((m) => !calls.has(`${r.property}.${m}`)).map((m) => `store.${r.property}.${m}`));
  t.same(missing, [], 'repository methods no contract check calls');
});

/** The unit of work's row operations, as `<rows>.<operation>` (e.g. `recipients.moveIfLeased`). */
function unitOfWorkOperations(): string[] {
  const source = parse(join(STORE_DIR, 'unit-of-work.ts'));
  return interfaceOf(source, 'UnitOfWork').members.flatMap((member) => {
    if (!member.name || !ts.isIdentifier(member.name)) return [];
    if (ts.isMethodSignature(member)) return [member.name.text];
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type)) return [];
    const rows = member.name.text;
    return methodsOf(interfaceOf(source, member.type.typeName.getText(source))).map((m) => `${rows}.${m}`);
  });
}

/** `<a>.<b>(` and `<a>(` calls (as `a.b` and `a`) of a set of files, read with the TypeScript parser. */
function callsIn(files: readonly string[]): Set<string> {
  const calls = new Set<string>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const target = node.expression.expression;
        calls.add(ts.isPropertyAccessExpression(target) ? `${target.name.text}.${node.expression.name.text}` : node.expression.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(file));
  }
  return calls;
}

t.test("every operation of the unit of work runs in the contract suite, directly or through the queue module or the intake's recording", async (t) => {
  const queueDir = join(root, 'shared', 'queue');
  const queueModule = readdirSync(queueDir)
    .filter((n) => n.endsWith('.ts'))
    .map((n) => join(queueDir, n))
    .concat(join(root, 'shared', 'intake', 'record.ts'));
  const contractFiles = readdirSync(CONTRACT_DIR)
    .filter((n) => n.endsWith('.ts'))
    .map((n) => join(CONTRACT_DIR, n));
  const calls = callsIn([...queueModule, ...contractFiles]);
  const operations = unitOfWorkOperations();
  t.ok(operations.includes('recipients.moveIfLeased'), `${operations.length} operations read from UnitOfWork`);
  t.same(
    operations.filter((op) => !calls.has(op)),
    [],
    "operations neither the queue module, the intake's recording nor a contract check calls",
  );
  // The queue module's decisions are what the contract's queue checks run, on each engine.
  for (const name of ['queue.ts', 'queue-control.ts']) {
    const text = readFileSync(join(CONTRACT_DIR, name), 'utf8');
    t.match(text, /shared\/queue\//, `contract/${name} runs the queue module`);
  }
});
