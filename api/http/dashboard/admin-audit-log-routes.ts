// The audit log of platform operators' actions (tern/v2 /admin/audit-log), for operators only: newest first,
// paged as WordPress collections, filtered by operator, action or target. Translation only.
import { Type } from '@sinclair/typebox';
import { endpoint, IDENTIFIER, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { collectionArgs, oneOf, pageReply } from './collection.js';
import { corePage } from './mailer-paging.js';
import { AUDIT_ACTIONS, AUDIT_TARGET_KINDS, type AuditEntry } from '../../../shared/domain/audit-log.js';

type Route = DashboardRoute<DashboardCaller>;

export const auditEntryView = (e: AuditEntry) => ({
  id: e.id,
  operator: { id: e.operatorId, email: e.operatorEmail },
  action: e.action,
  target: { kind: e.target.kind, id: e.target.id },
  before: e.before,
  after: e.after,
  reason: e.reason,
  at: e.at,
});

const auditLog: Route = {
  namespace: 'tern/v2',
  path: '/admin/audit-log',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Platform operators' actions, newest first (operators): who, what, which target, when, before and after, why",
      args: Type.Object({
        ...collectionArgs,
        operator_id: Type.Optional(Type.Integer({ description: 'Only the actions of this operator (a user id).', minimum: 1 })),
        action: Type.Optional(oneOf(AUDIT_ACTIONS, { description: 'Only this action.' })),
        target_kind: Type.Optional(oneOf(AUDIT_TARGET_KINDS, { description: 'Only actions on this kind of target.' })),
        target_id: Type.Optional(Type.String({ description: 'Only actions on the target of this id (a tenant: its id).', pattern: `^${IDENTIFIER}$`, maxLength: 64 })),
      }),
      async handle({ ctx, user, params, request }) {
        operatorOf(user);
        const filter = { operatorId: params.operator_id, action: params.action, targetKind: params.target_kind, targetId: params.target_id };
        const found = await ctx.core.auditLog.list(filter, corePage(params));
        return pageReply(request, params, found.rows.map(auditEntryView), found.total);
      },
    }),
  ],
};

export const adminAuditLogRoutes: readonly Route[] = [auditLog];
