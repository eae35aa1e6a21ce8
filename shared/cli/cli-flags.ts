// The operator commands' flags: parsed strictly (an unknown flag is an error), with a bad value reported as a
// usage error (exit 2) naming the flag.
import { parseArgs } from 'node:util';

/** Bad input on the command line: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {}

export type Flags = Record<string, string | boolean | undefined>;

/**
 * `--name value` as `--name=value` for every string option: a value may begin with a dash (a domain id is
 * base64url, so one in 64 does), which parseArgs would otherwise refuse as ambiguous.
 */
function joinValues(args: string[], spec: Record<string, 'string' | 'boolean'>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    if (name !== undefined && spec[name] === 'string' && i + 1 < args.length) out.push(`--${name}=${args[++i]!}`);
    else out.push(args[i]!);
  }
  return out;
}

export function flags(args: string[], spec: Record<string, 'string' | 'boolean'>): Flags {
  const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }]));
  try {
    return parseArgs({ args: joinValues(args, spec), options, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function required(f: Flags, name: string): string {
  const v = f[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function integer(f: Flags, name: string, options: { required?: boolean; min?: number } = {}): number | undefined {
  const v = f[name];
  if (v === undefined) {
    if (options.required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || !/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < (options.min ?? 0)) {
    throw new UsageError(`--${name} must be an integer${options.min !== undefined ? ` of at least ${options.min}` : ''}`);
  }
  return Number(v);
}
