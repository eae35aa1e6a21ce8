// The audit log of platform operators' actions: an entry made for each action (recorded by the store in the
// transaction of the change it describes, where the store makes that change in one), and the log as operators
// read it, newest first, filtered by operator, action or target.
import type { Store } from '../store/index.js';
import type { AuditFilter, NewAuditEntry } from '../store/audit-log.js';
import type { PageOf, PageRequest } from '../store/paging.js';
import type { AuditAction, AuditEntry, AuditTarget, JsonValue } from '../domain/audit-log.js';
import type { Operator } from '../domain/user.js';

export type { AuditFilter } from '../store/audit-log.js';

/** What an action did: to which target, the target before and after, and the operator's reason. */
export interface AuditedChange {
  action: AuditAction;
  target: AuditTarget;
  before: JsonValue | null;
  after: JsonValue | null;
  reason: string;
}

/** The entry of `operator`'s action at `at` (ISO 8601): its email is kept as it is now. */
export const auditEntry = (operator: Operator, change: AuditedChange, at: string): NewAuditEntry => ({
  operatorId: operator.id,
  operatorEmail: operator.email,
  ...change,
  at,
});

export class AuditLog {
  constructor(private readonly d: { store: Store }) {}

  list(filter: AuditFilter, page: PageRequest): Promise<PageOf<AuditEntry>> {
    return this.d.store.auditLog.list(filter, page);
  }
}
