// The audit log repository: operators' actions, appended (never changed) and listed newest first. An action
// whose change the store makes in one transaction records its entry in that transaction (see admin-teams.ts).
import type { AuditAction, AuditEntry, AuditTargetKind } from '../domain/audit-log.js';
import type { PageOf, PageRequest } from './paging.js';

/** An entry to append: the operator acting is a user that exists now, or null for the host's CLI. */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** Every field given narrows the list. */
export interface AuditFilter {
  operatorId?: number;
  action?: AuditAction;
  targetKind?: AuditTargetKind;
  /** With targetKind: one target. */
  targetId?: string;
}

export interface AuditLogRepository {
  /** Appends an entry on its own (for a change the store did not make in a transaction of its own). */
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  /** The entries that match, newest first, with their total. */
  list(filter: AuditFilter, page: PageRequest): Promise<PageOf<AuditEntry>>;
}
