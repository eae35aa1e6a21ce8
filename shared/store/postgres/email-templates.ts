// Email templates and their layout in PostgreSQL: as SQLite's (store/sqlite/email-templates.ts); the row read
// before a change is locked (FOR UPDATE), so the audit entry's "before" is the row the change replaced.
import type { PgSql } from './sql.js';
import type { EmailId, EmailLayout, EmailTemplate } from '../../domain/email-templates.js';
import type { EmailTemplateRepository, StoredEmailTemplate } from '../email-templates.js';
import type { NewAuditEntry } from '../audit-log.js';
import { PgAuditLogStore } from './audit-log.js';
import { decodeLayout, decodeTemplate, LAYOUT_COLUMNS, layoutValues, TEMPLATE_COLUMNS } from '../email-template-row.js';

export class PgEmailTemplateStore implements EmailTemplateRepository {
  constructor(private readonly sql: PgSql) {}

  async list(): Promise<StoredEmailTemplate[]> {
    return (await this.sql.all(`SELECT ${TEMPLATE_COLUMNS} FROM email_templates ORDER BY email_id`)).map(decodeTemplate);
  }

  async get(id: EmailId): Promise<StoredEmailTemplate | undefined> {
    const row = await this.sql.get(`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE email_id = $1`, [id]);
    return row && decodeTemplate(row);
  }

  async put(id: EmailId, t: EmailTemplate, at: string, audit: (before: StoredEmailTemplate | undefined) => NewAuditEntry): Promise<StoredEmailTemplate | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE email_id = $1 FOR UPDATE`, [id]);
      const before = row && decodeTemplate(row);
      await q.run(
        `INSERT INTO email_templates (email_id, subject, body, enabled, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (email_id) DO UPDATE SET subject = excluded.subject, body = excluded.body, enabled = excluded.enabled, updated_at = excluded.updated_at`,
        [id, t.subject, t.body, t.enabled ? 1 : 0, at],
      );
      await PgAuditLogStore.insert(q, audit(before));
      return before;
    });
  }

  async remove(id: EmailId, audit: (before: StoredEmailTemplate | undefined) => NewAuditEntry): Promise<StoredEmailTemplate | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`DELETE FROM email_templates WHERE email_id = $1 RETURNING ${TEMPLATE_COLUMNS}`, [id]);
      const before = row && decodeTemplate(row);
      await PgAuditLogStore.insert(q, audit(before));
      return before;
    });
  }

  async layout(): Promise<EmailLayout | undefined> {
    const row = await this.sql.get(`SELECT ${LAYOUT_COLUMNS} FROM email_layout WHERE id = 1`);
    return row && decodeLayout(row);
  }

  async putLayout(l: EmailLayout, at: string, audit: (before: EmailLayout | undefined) => NewAuditEntry): Promise<EmailLayout | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT ${LAYOUT_COLUMNS} FROM email_layout WHERE id = 1 FOR UPDATE`);
      const before = row && decodeLayout(row);
      await q.run(
        `INSERT INTO email_layout (id, ${LAYOUT_COLUMNS}, updated_at) VALUES (1, $1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET logo_url = excluded.logo_url, primary_color = excluded.primary_color, footer = excluded.footer,
           from_name = excluded.from_name, reply_to = excluded.reply_to, updated_at = excluded.updated_at`,
        [...layoutValues(l), at],
      );
      await PgAuditLogStore.insert(q, audit(before));
      return before;
    });
  }
}
