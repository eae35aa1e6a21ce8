// `ternmail store copy --to postgres://…`: the options read, the core's copy called, and its outcome printed (a
// table-by-table summary, or one JSON object with --json) or its refusal turned into a message (exit 1).
import type { Config } from '../config.js';
import { copyInstallation, postgresUrlProblem, shownUrl, type CopyRefusal, type StoreCopied } from '../core/store-copy.js';
import { flags, required, UsageError } from './cli-flags.js';
import { PrintedLines } from './queue-commands.js';

function refusalMessage(r: CopyRefusal, dataDir: string): string {
  switch (r.kind) {
    case 'no_database':
      return `no database in ${r.dataDir}: is TERNMAIL_DATA_DIR (or dataDir) the data directory of a Tern that ran?`;
    case 'in_use':
      return `${r.file} is in use: stop Tern (the API and the MTA, e.g. systemctl stop ternmail) and any ternmail command using ${dataDir}, then copy; nothing was written`;
    case 'source_version':
      return `the installation's schema is version ${r.found}, this release's is ${r.expected}: start this release once on SQLite (it migrates the database), stop it, then copy; nothing was written`;
    case 'target_unreachable':
      return `cannot use the target database: ${r.reason}; nothing was written`;
    case 'target_version':
      return `the target database holds Tern's schema at version ${r.found}, not ${r.expected}: copy into a new, empty database; nothing was written`;
    case 'target_not_empty':
      return `the target database is not empty (${r.tables.join(', ')}): copy into a new, empty database; nothing was written`;
    case 'copy_differs':
      return [`the copy differs from the installation, so it was rolled back (the target holds Tern's empty schema):`, ...r.differences.map((d) => `  ${d}`)].join('\n');
  }
}

function summary(copied: StoreCopied, dataDir: string, to: string): PrintedLines {
  const width = Math.max(...copied.tables.map((t) => t.table.length), 'table'.length);
  return new PrintedLines([
    `copied ${dataDir} (schema version ${copied.schemaVersion}) into ${shownUrl(to)}`,
    `${'table'.padEnd(width)}  ${'sqlite'.padStart(10)}  ${'postgres'.padStart(10)}`,
    ...copied.tables.map((t) => `${t.table.padEnd(width)}  ${String(t.source).padStart(10)}  ${String(t.target).padStart(10)}`),
    `every table's rows counted equal; the figures kept on write compared and equal: ${copied.figuresChecked.join(', ')}`,
  ]);
}

export async function storeCopyCommand(config: Config, args: string[]): Promise<unknown> {
  const f = flags(args, { to: 'string', json: 'boolean' });
  const to = required(f, 'to');
  const problem = postgresUrlProblem(to);
  if (problem) throw new UsageError(`--to: ${problem}`);
  const outcome = await copyInstallation(config, to);
  if (!outcome.ok) throw new Error(refusalMessage(outcome.refusal, config.dataDir));
  if (f.json !== true) return summary(outcome.value, config.dataDir, to);
  return {
    data_dir: config.dataDir,
    to: shownUrl(to),
    schema_version: outcome.value.schemaVersion,
    tables: outcome.value.tables,
    figures_checked: outcome.value.figuresChecked,
  };
}
