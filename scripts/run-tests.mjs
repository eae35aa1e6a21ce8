#!/usr/bin/env node
// The test command: type-check everything (tests included), build dist/ (the CLI tests run it), run the
// tap suite, and end with one line `N passed, N failed` counting the tests (not the assertions).
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit' }).status ?? 1;

if (run('npx', ['tsc', '-p', 'tsconfig.check.json']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
if (run('npx', ['tsc', '-p', 'tsconfig.json']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const files = process.argv.slice(2);
const tap = spawn('npx', ['tap', '--reporter=tap', '--disable-coverage', '--timeout=600', ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0' },
});

// Depth 0 lines are test files; depth 1 lines are the tests inside them.
let passed = 0;
let failed = 0;
let skipped = 0;
let fileTests = 0;
const lines = createInterface({ input: tap.stdout });
lines.on('line', (line) => {
  process.stdout.write(line + '\n');
  const m = /^( *)(not )?ok \d+ - (.*)$/.exec(line);
  if (!m) return;
  const depth = m[1].length / 4;
  const skip = /# (SKIP|TODO)\b/.test(m[3]);
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

tap.on('close', (code) => {
  if (code !== 0 && failed === 0) failed = 1;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
