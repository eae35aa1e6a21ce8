// This build's version, as package.json says it: what `ternmail status` and a backup's manifest report.
import { readFileSync } from 'node:fs';
import { projectPath } from './paths.js';

let version: string | undefined;

/** Read once; 'unknown' when package.json does not say. */
export function ternVersion(): string {
  if (version === undefined) {
    const pkg: unknown = JSON.parse(readFileSync(projectPath('package.json'), 'utf8'));
    version = typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : 'unknown';
  }
  return version;
}
