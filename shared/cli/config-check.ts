// `ternmail config check`: loads the configuration as the processes would (defaults, the file, TERNMAIL_*
// variables) without starting anything, and prints each bad setting by name, or a public host name that cannot be
// published (shared/public-hostname.ts). Exit 0 valid, 1 not.
import { ConfigError, loadConfig } from '../config.js';

export function checkConfig(): number {
  try {
    const config = loadConfig();
    // Loadable, but domains would be told to point their records at a name the Internet cannot reach.
    if (config.publicHostnameProblem !== null) {
      process.stdout.write(`configuration problem:\n  ${config.publicHostnameProblem}\n`);
      return 1;
    }
    process.stdout.write(`configuration OK (data dir ${config.dataDir})\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const lines = err.problems.length > 0 ? [`invalid configuration in ${err.sources}:`, ...err.problems.map((p) => `  ${p}`)] : [err.message];
    process.stdout.write(lines.join('\n') + '\n');
    return 1;
  }
}
