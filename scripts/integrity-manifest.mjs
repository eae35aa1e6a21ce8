#!/usr/bin/env node
// Writes dist/integrity-manifest.json at build time: the sha256 of every file of Tern's installation that the
// integrity scan (shared/core/integrity-scan.ts) checks, and the roots it covers. Run after tsc by `npm run build`,
// `npm install` (prepare) and the test command. node_modules is not covered: npm ci checks it against
// package-lock.json's integrity hashes.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
/** What the scan covers, relative to the installation's root: Tern's code, its policy, its units and tools. */
const ROOTS = ['dist/api', 'dist/mta', 'dist/shared', 'config', 'systemd', 'scripts', 'api/web/static', 'package.json', 'package-lock.json'];

function* filesUnder(path) {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) return yield path;
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) yield* filesUnder(join(path, entry.name));
    else if (entry.isFile()) yield join(path, entry.name);
  }
}

const files = {};
for (const r of ROOTS) for (const file of filesUnder(join(root, r))) files[relative(root, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
writeFileSync(join(root, 'dist', 'integrity-manifest.json'), `${JSON.stringify({ builtAt: new Date().toISOString(), roots: ROOTS, files }, null, 1)}\n`);
