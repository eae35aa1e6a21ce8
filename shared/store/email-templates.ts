// The email-templates repository: the operators' edits of the mail Tern sends itself (an email with no row has
// its default wording), and the one layout around all of them. Each change is recorded with its audit entry in
// one transaction.
import type { EmailId, EmailLayout, EmailTemplate } from '../domain/email-templates.js';
import type { NewAuditEntry } from './audit-log.js';

export interface StoredEmailTemplate extends EmailTemplate {
  id: EmailId;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

export interface EmailTemplateRepository {
  /** Every edited email. */
  list(): Promise<StoredEmailTemplate[]>;
  get(id: EmailId): Promise<StoredEmailTemplate | undefined>;
  /** Stores an email's edit and `audit(before)` together; the edit before (undefined: the default was in use). */
  put(id: EmailId, t: EmailTemplate, at: string, audit: (before: StoredEmailTemplate | undefined) => NewAuditEntry): Promise<StoredEmailTemplate | undefined>;
  /** Drops an email's edit (back to its default) and `audit(before)` together; the edit dropped, if any. */
  remove(id: EmailId, audit: (before: StoredEmailTemplate | undefined) => NewAuditEntry): Promise<StoredEmailTemplate | undefined>;
  /** The layout as stored; undefined until an operator saves one. */
  layout(): Promise<EmailLayout | undefined>;
  /** Stores the layout and `audit(before)` together; the layout before. */
  putLayout(l: EmailLayout, at: string, audit: (before: EmailLayout | undefined) => NewAuditEntry): Promise<EmailLayout | undefined>;
}
