// Lint configuration: typescript-eslint's type-aware rules over every TypeScript file, with the house rules
// (no `any` at boundaries, no forgotten promise, small functions); Prettier owns layout, so no style rule here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import { builtinRules } from 'eslint/use-at-your-own-risk';

const functionLength = { max: 60, skipBlankLines: true, skipComments: true };

/** True for the callback of a tap `t.test(...)`; with `topLevel`, only of one written at the top of a test file. */
function isTestCallback(fn, topLevel) {
  const call = fn.parent;
  if (call?.type !== 'CallExpression' || call.callee.type !== 'MemberExpression' || call.callee.property.name !== 'test') return false;
  if (!topLevel) return true;
  const statement = call.parent?.type === 'AwaitExpression' ? call.parent.parent : call.parent;
  return statement?.type === 'ExpressionStatement' && statement.parent?.type === 'Program';
}

/** `rule` as it is, minus what it reports on a test callback (see isTestCallback). */
function exceptTestCallbacks(rule, topLevel) {
  return {
    meta: rule.meta,
    create(context) {
      const report = (descriptor) => isTestCallback(descriptor.node, topLevel) || context.report(descriptor);
      return rule.create(Object.create(context, { report: { value: report } }));
    },
  };
}

const testRules = {
  // A top-level test is a group of subtests around one harness, or one end-to-end scenario: it reads best whole.
  'max-lines-per-function': exceptTestCallbacks(builtinRules.get('max-lines-per-function'), true),
  // tap ends a test when the promise its callback returns settles (a plain function must call t.end()), so a
  // test callback is async whether or not it awaits.
  'require-await': exceptTestCallbacks(tseslint.plugin.rules['require-await'], false),
};

// Import rules by folder (test/architecture.test.ts checks the same over the whole tree, cycles included). Imports
// are relative: a path that climbs to the root and enters another top folder is what each pattern catches.
const UP = String.raw`^(\.\./)+`;
const forbid = (regex, message) => ({ regex, message });
const NO_MTA = forbid(`${UP}mta/`, 'api/ never imports mta/: what both use belongs in shared/.');
const NO_API = forbid(`${UP}api/`, 'mta/ never imports api/: what both use belongs in shared/.');
const NO_PROCESS = forbid(`${UP}(api|mta)/`, 'shared/ imports neither process: a process hands the kernel what it needs (ports in shared/core/ports).');
const NO_STORE_FROM_PROCESS = forbid(`${UP}shared/store/`, 'api/ and mta/ reach the store only through shared/core.');
const NO_STORE_IN_SHARED = forbid(String.raw`^(\./|(\.\./)+)store/`, 'only shared/core, queue, intake and runtime import the store.');
const NO_ENGINE = forbid(String.raw`(^|/)store/(sqlite|postgres)/`, 'only shared/store/ opens its engines (sqlite/, postgres/): use the repository interfaces.');
const importRules = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const STORE_USERS = ['shared/core/**', 'shared/queue/**', 'shared/intake/**', 'shared/runtime/**'];

/** SQL statements as an engine writes them, in a string: only in the engines, SQLite's and PostgreSQL's (and the store's own tests). */
const SQL = String.raw`/\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|TRIGGER))\b/`;
const sqlMessage = 'SQL is written only in the engines, shared/store/sqlite/ and shared/store/postgres/: go through a repository.';

const architecture = [
  { files: ['api/**/*.ts'], rules: importRules(NO_MTA, NO_STORE_FROM_PROCESS, NO_ENGINE) },
  { files: ['mta/**/*.ts'], rules: importRules(NO_API, NO_STORE_FROM_PROCESS, NO_ENGINE) },
  { files: ['shared/**/*.ts'], ignores: [...STORE_USERS, 'shared/store/**'], rules: importRules(NO_PROCESS, NO_STORE_IN_SHARED, NO_ENGINE) },
  { files: STORE_USERS.map((f) => `${f}/*.ts`), rules: importRules(NO_PROCESS, NO_ENGINE) },
  { files: ['shared/store/**/*.ts'], rules: importRules(NO_PROCESS) },
  // Tests and benches reach the store through its interface too; the engine's own tests (test/store/) open it.
  { files: ['test/**/*.ts', 'bench/**/*.ts'], ignores: ['test/store/**'], rules: importRules(NO_ENGINE) },
  {
    files: ['**/*.ts'],
    // As test/architecture.test.ts allows: the engines, their tests and the helper that makes an older release's
    // database; and the architecture test, which holds SQL on purpose (its pattern must tell a statement from prose).
    ignores: ['shared/store/sqlite/**', 'shared/store/postgres/**', 'test/store/**', 'test/architecture.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `Literal[value=${SQL}]`, message: sqlMessage },
        { selector: `TemplateElement[value.raw=${SQL}]`, message: sqlMessage },
      ],
    },
  },
];

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'data/', '.tap/', 'test/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // tsconfig.check.json is the one project that holds every TypeScript file, tests included.
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { tern: { rules: testRules } },
    rules: {
      eqeqeq: ['error', 'always'],
      'max-lines-per-function': ['error', functionLength],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // tap queues a subtest itself and reports its failure; awaiting `t.test(...)` is optional by design.
        { allowForKnownSafeCalls: [{ from: 'package', name: 'test', package: '@tapjs/test' }] },
      ],
      '@typescript-eslint/no-unused-vars': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['test/**/*.test.ts'],
    rules: {
      'max-lines-per-function': 'off',
      'tern/max-lines-per-function': ['error', functionLength],
      '@typescript-eslint/require-await': 'off',
      'tern/require-await': 'error',
      // Tests read the product's JSON answers as untyped data (UntypedJson, harness/ternmail.ts) and check
      // their shape with tap's assertions; casting them to the shape under test would assume what is tested.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (this file, scripts/) is outside the TypeScript project: no type information to lint with.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The dashboard's own script runs in the browser, beside uPlot's (a global of its own file).
    files: ['api/web/static/**/*.js'],
    languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } },
  },
  ...architecture,
  prettier,
);
