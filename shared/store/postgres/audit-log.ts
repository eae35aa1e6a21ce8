// The audit log in PostgreSQL: one row per operator action, its snapshots as JSON text. Each filter has an index
// ending in id, so a filtered page is read newest first from its index and stops with the page.
import { ParamList, type PgSql, type Queryable, type SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import type { AuditEntry } from '../../domain/audit-log.js';
import type { AuditFilter, AuditLogRepository, NewAuditEntry } from '../audit-log.js';
import { decodeEntry } from '../audit-row.js';

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
