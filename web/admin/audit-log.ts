// The audit log of the platform operators' actions (/admin/audit-log): who did what to which tenant or
// invitation, when, why, and the target before and after; filtered by action, target and operator. The same
// core use case as the REST route (core.auditLog).
import { AUDIT_ACTIONS, AUDIT_TARGET_KINDS, type AuditEntry, type JsonValue } from '../../domain/audit-log.js';
import { html, type Html } from '../html.js';
import { pageError } from '../errors.js';
import { operatorPage, type PageCall } from '../page.js';
import { table, when } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { choiceQuery, choicesOf, filterForm, idQuery, listPage, listPager, textQuery } from '../lists.js';

const snapshot = (v: JsonValue): Html => (v === null ? html`—` : html`<code>${JSON.stringify(v)}</code>`);

const targetOf = (e: AuditEntry): Html =>
  e.target.kind === 'tenant'
    ? html`<a href="/admin/tenants/${e.target.id}">tenant #${e.target.id}</a>`
    : e.target.kind === 'platform'
      ? html`platform setting ${e.target.id}`
      : html`invitation #${e.target.id}`;

function entryRow(e: AuditEntry): Html {
  return html`<tr>
    <th scope="row">${when(e.at)}</th>
    <td>${e.operatorEmail}</td>
    <td>${e.action}</td>
    <td>${targetOf(e)}</td>
    <td>${e.reason}</td>
    <td>${snapshot(e.before)}</td>
    <td>${snapshot(e.after)}</td>
  </tr>`;
}

async function auditLog({ ctx, r }: PageCall<OperatorViewer>): Promise<PageReply> {
  const targetId = textQuery(r, 'target_id', 'The target', 64);
  if (targetId !== undefined && !/^[A-Za-z0-9_-]+$/.test(targetId)) throw pageError('invalid_request', 'The target must be an id: letters, digits, _ or -.');
  const filter = {
    operatorId: idQuery(r, 'operator_id', 'The operator'),
    action: choiceQuery(r, 'action', 'Action', AUDIT_ACTIONS),
    targetKind: choiceQuery(r, 'target_kind', 'Target kind', AUDIT_TARGET_KINDS),
    targetId,
  };
  const page = listPage(ctx, r);
  const found = await ctx.core.auditLog.list(filter, page);
  const filters = filterForm(r, '/admin/audit-log', [
    { name: 'action', label: 'Action', choices: choicesOf(AUDIT_ACTIONS) },
    { name: 'target_kind', label: 'Target kind', choices: choicesOf(AUDIT_TARGET_KINDS) },
    { name: 'target_id', label: 'Target id' },
    { name: 'operator_id', label: 'Operator (user id)', type: 'number' },
  ]);
  const head = ['When', 'Operator', 'Action', 'Target', 'Reason', 'Before', 'After'];
  const body = html`${filters} ${table('Operators’ actions, newest first', head, found.rows.map(entryRow), 'No action matches these filters.')}
  ${listPager(r, page, found.total)}`;
  return { kind: 'page', title: 'Audit log', body };
}

export const AUDIT_LOG_PAGES = [operatorPage({ method: 'GET', path: '/admin/audit-log', title: 'Audit log', handle: auditLog })];
