// `ternmail config check`: loads every policy as the processes would (the configuration from its defaults, the
// file and TERNMAIL_* variables; the retry policy, config/retry.json with its variables; the SMTP reply rules,
// config/smtp-replies.json) without starting anything, and prints each bad setting by file and name, or a public
// host name that cannot be published (shared/public-hostname.ts). Exit 0 valid, 1 not.
import { ConfigError, loadConfig, type Config } from '../config.js';
import { loadRetryPolicy } from '../policies/retry.js';
import { loadReplyRules } from '../policies/smtp-replies.js';

/** The lines a ConfigError prints: its sources, then one wrong setting a line (or its message, for a file it could not read). */
function problemLines(what: string, err: ConfigError): string[] {
  return err.problems.length > 0 ? [`invalid ${what} in ${err.sources}:`, ...err.problems.map((p) => `  ${p}`)] : [err.message];
}

/** What loading one policy printed: nothing when it is valid. */
function check<T>(what: string, load: () => T): { value: T | null; lines: string[] } {
  try {
    return { value: load(), lines: [] };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { value: null, lines: problemLines(what, err) };
  }
}

export function checkConfig(): number {
  const config = check<Config>('configuration', () => loadConfig());
  // Each policy file is judged on its own, so one broken file does not hide another's problems.
  const rules = [check('retry policy', () => loadRetryPolicy()), check('SMTP reply rules', () => loadReplyRules())];
  const lines = [...config.lines, ...rules.flatMap((r) => r.lines)];
  // Loadable, but domains would be told to point their records at a name the Internet cannot reach.
  if (config.value && config.value.publicHostnameProblem !== null) lines.unshift(`configuration problem:`, `  ${config.value.publicHostnameProblem}`);
  if (lines.length > 0) {
    process.stdout.write(lines.join('\n') + '\n');
    return 1;
  }
  process.stdout.write(`configuration OK (data dir ${config.value!.dataDir})\n`);
  return 0;
}
