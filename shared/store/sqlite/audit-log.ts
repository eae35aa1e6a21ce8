// The audit log in SQLite: one row per operator action, its snapshots as JSON text. Each filter has an index
// ending in id, so a filtered page is read newest first from its index and stops with the page.
import type { Queryable, Sql, SqlValue } from './sql.js';
import { countOf } from './decode.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import type { AuditEntry } from '../../domain/audit-log.js';
import type { AuditFilter, AuditLogRepository, NewAuditEntry } from '../audit-log.js';
import { decodeEntry } from '../audit-row.js';

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
