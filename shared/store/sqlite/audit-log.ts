// The audit log in SQLite: one row per operator action, its snapshots as JSON text. Each filter has an index
// ending in id, so a filtered page is read newest first from its index and stops with the page.
import { Type } from '@sinclair/typebox';
import type { Queryable, Sql, SqlValue } from './sql.js';
import { countOf, Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { AUDIT_ACTIONS, AUDIT_TARGET_KINDS, type AuditEntry, type JsonValue } from '../../domain/audit-log.js';
import type { AuditFilter, AuditLogRepository, NewAuditEntry } from '../audit-log.js';

/** Any JSON value: what a snapshot may hold. */
const Json = Type.Recursive((Self) => Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(Self), Type.Record(Type.String(), Self)]));
const decodeSnapshot = jsonDecoder('audit snapshot', Json);
const snapshotOf = (text: string | null): JsonValue | null => (text === null ? null : decodeSnapshot(text));

const AuditRow = Type.Object({
  id: Int,
  operator_id: Nullable(Int),
  operator_email: Text,
  action: OneOf(AUDIT_ACTIONS),
  target_kind: OneOf(AUDIT_TARGET_KINDS),
  target_id: Text,
  before_json: Nullable(Text),
  after_json: Nullable(Text),
  reason: Text,
  at: Text,
});

const decodeEntry = rowDecoder('audit entry', AuditRow, (r): AuditEntry => ({
  id: r.id,
  operatorId: r.operator_id,
  operatorEmail: r.operator_email,
  action: r.action,
  target: { kind: r.target_kind, id: r.target_id },
  before: snapshotOf(r.before_json),
  after: snapshotOf(r.after_json),
  reason: r.reason,
  at: r.at,
}));

const COLUMNS = 'id, operator_id, operator_email, action, target_kind, target_id, before_json, after_json, reason, at';

const INSERT = `INSERT INTO audit_log (operator_id, operator_email, action, target_kind, target_id, before_json, after_json, reason, at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`;

const insertParams = (e: NewAuditEntry): SqlValue[] => [
  e.operatorId,
  e.operatorEmail,
  e.action,
  e.target.kind,
  e.target.id,
  e.before === null ? null : JSON.stringify(e.before),
  e.after === null ? null : JSON.stringify(e.after),
  e.reason,
  e.at,
];

/** The WHERE clause of a filter and its params. */
function whereOf(f: AuditFilter): [string, SqlValue[]] {
  const terms: string[] = [];
  const params: SqlValue[] = [];
  const add = (term: string, value: SqlValue | undefined) => {
    if (value === undefined) return;
    terms.push(term);
    params.push(value);
  };
  add('operator_id = ?', f.operatorId);
  add('action = ?', f.action);
  add('target_kind = ?', f.targetKind);
  add('target_id = ?', f.targetId);
  return [terms.length ? terms.join(' AND ') : '1 = 1', params];
}

export class AuditLogStore implements AuditLogRepository {
  constructor(private readonly sql: Sql) {}

  /** Appends an entry inside another repository's transaction: the change and its record commit together. */
  static async insert(q: Queryable, entry: NewAuditEntry): Promise<AuditEntry> {
    return decodeEntry((await q.get(INSERT, insertParams(entry)))!);
  }

  async record(entry: NewAuditEntry): Promise<AuditEntry> {
    const [row] = await this.sql.returning(INSERT, insertParams(entry));
    return decodeEntry(row!);
  }

  async list(filter: AuditFilter, page: PageRequest): Promise<PageOf<AuditEntry>> {
    const [where, params] = whereOf(filter);
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM audit_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`, [...params, ...limitOffset(page)]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM audit_log WHERE ${where}`, params);
    return { rows: rows.map(decodeEntry), total: countOf(total!) };
  }
}
