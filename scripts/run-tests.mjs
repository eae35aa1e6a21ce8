#!/usr/bin/env node
// The test command: type-check everything (tests included), build dist/ (the CLI tests run it), run the
// tap suite, and end with a list of the failures (CI logs keep only their tail) and one line
// `N passed, N failed` counting the tests (not the assertions).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit' }).status ?? 1;

if (run('npx', ['tsc', '-p', 'tsconfig.check.json']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (run('npx', ['tsc', '-p', 'tsconfig.json']) !== 0 || run('node', ['scripts/integrity-manifest.mjs']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// With no files named, the whole suite runs on SQLite and then the subset listed in test/postgres-subset.json
// runs again on PostgreSQL (TERN_TEST_ENGINE=postgres; docs/decisions.md says why that subset); `--postgres-subset`
// runs that second pass alone. Named files run once, on the engine TERN_TEST_ENGINE names (SQLite by default).
const named = process.argv.slice(2);
const postgresPass = { files: JSON.parse(readFileSync('test/postgres-subset.json', 'utf8')).files, env: { TERN_TEST_ENGINE: 'postgres' } };
const passes =
  named[0] === '--postgres-subset' ? [postgresPass] : named.length ? [{ files: named, env: {} }] : [{ files: [], env: { TERN_TEST_ENGINE: 'sqlite' } }, postgresPass];

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
let exitCode = 0;
for (const pass of passes) {
  if (pass.env.TERN_TEST_ENGINE === 'postgres') console.log('\n# The PostgreSQL subset (test/postgres-subset.json), TERN_TEST_ENGINE=postgres');
  const code = await runTap(pass.files, pass.env, pass.env.TERN_TEST_ENGINE === 'postgres' ? '[postgres] ' : '');
  if (code !== 0) exitCode = code;
}
summarize();

/** One tap run; counts into the totals above; resolves with tap's exit code. */
function runTap(files, extraEnv, prefix) {
  const tap = spawn('npx', ['tap', '--reporter=tap', '--disable-coverage', '--timeout=600', ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FORCE_COLOR: '0', ...extraEnv },
  });
  // Depth 0 lines are test files; depth 1 lines are the tests inside them.
  let fileTests = 0;
  // Subtest names by depth, so that a failing assertion is reported with the test and file it is in.
  const names = [];
  // The YAML diagnostics that follow a failing assertion, kept for the summary (bounded).
  let diagnostics = null;
  // Where the failing assertion is in the source says less than what it compared; keep the comparison.
  const noisyKeys = new Set(['at', 'stack', 'source']);
  let skippingKey = false;
  function keepDiagnostic(line) {
    if (/^\s*\.\.\.$/.test(line) || diagnostics.length >= 30) {
      diagnostics = null;
      return;
    }
    const key = /^( *)([a-zA-Z]+):/.exec(line);
    if (key && key[1].length === diagnostics.indent) skippingKey = noisyKeys.has(key[2]);
    if (/^\s*---$/.test(line)) diagnostics.indent = line.indexOf('-');
    else if (!skippingKey) diagnostics.push(line);
  }
  const lines = createInterface({ input: tap.stdout });
  lines.on('line', (line) => {
    process.stdout.write(line + '\n');
    if (diagnostics) keepDiagnostic(line);
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const depth = subtest[1].length / 4;
      names.length = depth;
      names[depth] = subtest[2];
      return;
    }
    const m = /^( *)(not )?ok \d+ - (.*)$/.exec(line);
    if (!m) return;
    const depth = m[1].length / 4;
    const skip = /# (SKIP|TODO)\b/.test(m[3]);
    if (m[2] && !skip) {
      diagnostics = [];
      skippingKey = false;
      failures.push({ path: prefix + [...names.slice(0, depth), m[3]].join(' › '), diagnostics });
    }
    if (depth === 1) {
      fileTests++;
      if (skip) skipped++;
      else if (m[2]) failed++;
      else passed++;
    } else if (depth === 0) {
      // A file that failed without any failing test inside it (a crash, a timeout) counts as one failure.
      if (m[2] && fileTests === 0) failed++;
      fileTests = 0;
    }
  });

  return new Promise((resolve) => {
    tap.on('close', (code) => {
      if (code !== 0 && failed === 0) failed = 1;
      resolve(code ?? 1);
    });
  });
}

function summarize() {
  if (failures.length) {
    console.log('\n# Failures');
    // A failing test also fails its parents and its file; list only the innermost failures.
    const innermost = failures.filter((f, i) => !failures.slice(0, i).some((g) => g.path.startsWith(f.path.replace(/ # time=.*$/, ''))));
    for (const f of innermost.slice(0, 40)) {
      console.log(`not ok - ${f.path}`);
      for (const d of f.diagnostics) console.log(d);
    }
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(exitCode === 0 && failed === 0 ? 0 : 1);
}
