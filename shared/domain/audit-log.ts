// The audit log of platform operators' actions: who (the operator, and its email at the time), what (one of a
// closed set of actions), on which target, when, the target before and after (JSON snapshots), and why.

/** What an operator did; a new admin action adds its name here (the store checks it when reading). */
export const AUDIT_ACTIONS = [
  'tenant.suspend',
  'tenant.reactivate',
  'credits.grant',
  'credits.remove',
  'credits.payment',
  'tenant.low_credit_email',
  'invitation.create',
  'invitation.revoke',
  'queue.hold',
  'queue.release',
  'queue.flush',
  'queue.purge',
  'queue.requeue',
  'system_mail.sender',
  'auth_log.truncate',
  'login_settings.update',
  'sign_in_redirects.update',
  'ticket.respond',
  'ticket.close',
  'ticket.reopen',
  'ticket.assign',
  'support.settings',
  'support_doc.create',
  'email_template.save',
  'email_template.reset',
  'email_layout.save',
  'social_sign_in.save',
  'integrity.register',
  'integrity.reset',
  'integrity.schedule',
  'integrity.ignore',
  'integrity.unignore',
  'integrity.reset_ignores',
  'sso_site.create',
  'sso_site.remove',
  'branding.save',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The kinds of thing an action is done to. */
export const AUDIT_TARGET_KINDS = ['tenant', 'invitation', 'queue', 'platform', 'ticket', 'support_doc', 'sso_site'] as const;
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

/** A value as JSON holds it: what a snapshot of a target is made of. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface AuditTarget {
  kind: AuditTargetKind;
  /**
   * The target's id as text (a team's is its team id, an invitation's its platform invitation id, the queue's
   * the selector of the recipients an operation chose, such as `team=3 domain=example.net` or `all`; a platform
   * setting's its name, such as `system_mail.from`).
   */
  id: string;
}

export interface AuditEntry {
  id: number;
  /** Null once the operator's user is removed (its email stays), and for the host's CLI. */
  operatorId: number | null;
  /** The operator's email when it acted; for the CLI, `ternmail CLI (user)` with the host's user name. */
  operatorEmail: string;
  action: AuditAction;
  target: AuditTarget;
  /** The target before and after the action; null where there was none (a creation, a deletion). */
  before: JsonValue | null;
  after: JsonValue | null;
  reason: string;
  /** ISO 8601 UTC. */
  at: string;
}

export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);
