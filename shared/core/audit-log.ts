// The audit log of platform operators' actions: an entry made for each action (recorded by the store in the
// transaction of the change it describes, where the store makes that change in one), and the log as operators
// read it, newest first, filtered by operator, action or target.
import type { Store } from '../store/index.js';
import type { AuditFilter, NewAuditEntry } from '../store/audit-log.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { AuditAction, AuditEntry, AuditTarget, JsonValue } from '../domain/audit-log.js';
import type { AccountUser, Operator } from '../domain/user.js';

export type { AuditFilter } from '../store/audit-log.js';

/** What an action did: to which target, the target before and after, and the operator's reason. */
export interface AuditedChange {
  action: AuditAction;
  target: AuditTarget;
  before: JsonValue | null;
  after: JsonValue | null;
  reason: string;
}

/**
 * Who acts on the platform: an operator signed in to the dashboard, or the host's sysadmin through the `ternmail`
 * CLI, named by the host's user that ran it (the CLI has no login: whoever can run it on the host owns the data dir).
 */
export type AuditActor = { kind: 'operator'; operator: Operator } | { kind: 'cli'; user: string } | { kind: 'account_user'; user: AccountUser };

/**
 * The actor as the audit log names it: an operator by id and its email now; the CLI by no id and `ternmail CLI
 * (user)`; an account's user (an owner erasing their account's auth log) by id and `email (role of account N)`.
 */
export function auditedBy(actor: AuditActor): Pick<NewAuditEntry, 'operatorId' | 'operatorEmail'> {
  switch (actor.kind) {
    case 'operator':
      return { operatorId: actor.operator.id, operatorEmail: actor.operator.email };
    case 'cli':
      return { operatorId: null, operatorEmail: `ternmail CLI (${actor.user})` };
    case 'account_user':
      return { operatorId: actor.user.id, operatorEmail: `${actor.user.email} (${actor.user.role} of account ${actor.user.teamId})` };
  }
}

/** An operator alone is the dashboard's signed-in operator. */
export const asAuditActor = (actor: Operator | AuditActor): AuditActor => ('kind' in actor ? actor : { kind: 'operator', operator: actor });

/** The entry of `actor`'s action at `at` (ISO 8601). */
export const auditEntry = (actor: Operator | AuditActor, change: AuditedChange, at: string): NewAuditEntry => ({
  ...auditedBy(asAuditActor(actor)),
  ...change,
  at,
});

export class AuditLog {
  constructor(private readonly d: { store: Store }) {}

  list(filter: AuditFilter, page: PageRequest): Promise<PageOf<AuditEntry>> {
    return this.d.store.auditLog.list(filter, page);
  }
}
