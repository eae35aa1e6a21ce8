// What the operator commands share: the host's use cases opened for one command and closed after it, the CLI as
// the audit log names it (the host's user running `ternmail`), and a refusal of the core as the command's exit.
import { userInfo } from 'node:os';
import type { Config } from '../config.js';
import { openHostCore, type HostCore } from '../core/host.js';
import type { AuditActor } from '../core/audit-log.js';
import type { Managed, ManagementRefusal } from '../core/management-refusals.js';
import { UsageError } from './cli-flags.js';

export async function withHost<T>(config: Config, work: (host: HostCore) => Promise<T>): Promise<T> {
  const host = await openHostCore(config);
  try {
    return await work(host);
  } finally {
    await host.close();
  }
}

/** Who acts through the CLI: the host's user running `ternmail` (there is no login; owning the data dir is the right). */
export const cliActor = (): AuditActor => ({ kind: 'cli', user: userInfo().username });

/** A refusal as the CLI reports it: bad input is a usage error (exit 2) naming the option, anything else an error (exit 1). */
export function refusalError(refusal: ManagementRefusal): Error {
  if (refusal.kind === 'invalid_field') return new UsageError(`--${refusal.field.replace(/_/g, '-')}: ${refusal.message}`);
  if (refusal.kind === 'not_found') return new Error(refusal.message);
  return new Error(`refused: ${refusal.kind}`);
}

/** The value of a use case's result, or its refusal thrown as the command's error (`explain` words some refusals itself). */
export function valueOf<T>(m: Managed<T>, explain: (refusal: ManagementRefusal) => Error | undefined = () => undefined): T {
  if (!m.ok) throw explain(m.refusal) ?? refusalError(m.refusal);
  return m.value;
}
