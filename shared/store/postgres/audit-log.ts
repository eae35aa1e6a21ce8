// The audit log in PostgreSQL: one row per operator action, its snapshots as JSON text. Each filter has an index
// ending in id, so a filtered page is read newest first from its index and stops with the page.
import { Type } from '@sinclair/typebox';
import { ParamList, type PgSql, type Queryable, type SqlValue } from './sql.js';
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
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`;

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

/** The WHERE clause of a filter, its values added to `params`. */
function whereOf(f: AuditFilter, params: ParamList): string {
  const terms: string[] = [];
  const add = (column: string, value: SqlValue | undefined) => {
    if (value !== undefined) terms.push(`${column} = ${params.add(value)}`);
  };
  add('operator_id', f.operatorId);
  add('action', f.action);
  add('target_kind', f.targetKind);
  add('target_id', f.targetId);
  return terms.length ? terms.join(' AND ') : 'TRUE';
}

export class PgAuditLogStore implements AuditLogRepository {
  constructor(private readonly sql: PgSql) {}

  /** Appends an entry inside another repository's transaction: the change and its record commit together. */
  static async insert(q: Queryable, entry: NewAuditEntry): Promise<AuditEntry> {
    return decodeEntry((await q.get(INSERT, insertParams(entry)))!);
  }

  record(entry: NewAuditEntry): Promise<AuditEntry> {
    return PgAuditLogStore.insert(this.sql, entry);
  }

  async list(filter: AuditFilter, page: PageRequest): Promise<PageOf<AuditEntry>> {
    const params = new ParamList();
    const where = whereOf(filter, params);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM audit_log WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(
      `SELECT ${COLUMNS} FROM audit_log WHERE ${where} ORDER BY id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    return { rows: rows.map(decodeEntry), total: countOf(total!) };
  }
}
