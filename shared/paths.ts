// Where the project's own files are, whether running from source (tests) or from dist/ (installed).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('project root not found');
    dir = parent;
  }
  return dir;
}

const root = findProjectRoot();

export function projectPath(...parts: string[]): string {
  return join(root, ...parts);
}
