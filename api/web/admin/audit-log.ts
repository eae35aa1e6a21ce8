// The audit log of the platform operators' actions (/admin/audit-log): who did what to which team or
// invitation (a team by its name), when, why, and what changed, field by field (old → new); filtered by action, target and operator. The same
// core use case as the REST route (core.auditLog).
import { AUDIT_ACTIONS, AUDIT_TARGET_KINDS, type AuditEntry, type JsonValue } from '../../../shared/domain/audit-log.js';
import { html, type Html } from '../html.js';
import { pageError } from '../errors.js';
import { operatorPage, type PageCall } from '../page.js';
import { table, when } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';
import { namedTeam } from './shared.js';
import { choiceQuery, choicesOf, filterForm, idQuery, listPage, listPager, textQuery } from '../lists.js';

type Flat = Map<string, JsonValue>;

/** A snapshot as `field → value`, nested objects under dotted names (`payment.currency`); none is empty. */
function flatten(v: JsonValue | null, prefix = '', into: Flat = new Map()): Flat {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [key, inner] of Object.entries(v)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) into.set(prefix, v);
  else if (v !== null) into.set('value', v);
  return into;
}

/** A value as people read it: none as a dash, a list comma-separated. */
const shown = (v: JsonValue | undefined): string => {
  if (v === undefined || v === null || v === '') return '—';
  if (Array.isArray(v)) return v.map((item) => shown(item)).join(', ');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
};

/** What the action changed, one line per field that differs: `field: old → new`. */
function changes(e: AuditEntry): Html {
  const before = flatten(e.before);
  const after = flatten(e.after);
  const fields = [...new Set([...after.keys(), ...before.keys()])].filter((f) => JSON.stringify(before.get(f)) !== JSON.stringify(after.get(f)));
  if (fields.length === 0) return html`<span class="muted">no change</span>`;
  return html`<ul class="changes">
    ${fields.map((f) => html`<li><span class="field">${f}</span>: ${shown(before.get(f))} → ${shown(after.get(f))}</li>`)}
  </ul>`;
}

const teamIdOf = (e: AuditEntry): number | undefined => (e.target.kind === 'tenant' && /^\d+$/.test(e.target.id) ? Number(e.target.id) : undefined);

function targetOf(e: AuditEntry, names: ReadonlyMap<number, string>): Html {
  const team = teamIdOf(e);
  if (team !== undefined) return namedTeam(team, names);
  if (e.target.kind === 'platform') return html`platform setting ${e.target.id}`;
  return e.target.kind === 'invitation' ? html`invitation ${e.target.id}` : html`${e.target.kind} ${e.target.id}`;
}

function entryRow(e: AuditEntry, names: ReadonlyMap<number, string>): Html {
  return html`<tr>
    <th scope="row">${when(e.at)}</th>
    <td>${e.operatorEmail}</td>
    <td>${e.action}</td>
    <td>${targetOf(e, names)}</td>
    <td>${e.reason}</td>
    <td>${changes(e)}</td>
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
  const names = await ctx.core.adminTeams.names(found.rows.flatMap((e) => teamIdOf(e) ?? []));
  const head = ['When', 'Operator', 'Action', 'Target', 'Reason', 'Change'];
  const body = html`${filters}
  ${table(
    'Operators’ actions, newest first',
    head,
    found.rows.map((e) => entryRow(e, names)),
    'No action matches these filters.',
  )}
  ${listPager(r, page, found.total)}`;
  return { kind: 'page', title: 'Audit log', body };
}

export const AUDIT_LOG_PAGES = [operatorPage({ method: 'GET', path: '/admin/audit-log', title: 'Audit log', handle: auditLog })];
