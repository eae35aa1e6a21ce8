// The email templates' and layout's rows as both engines store them (the same columns), decoded.
import { Type } from '@sinclair/typebox';
import { Flag, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { EMAIL_IDS, type EmailLayout } from '../domain/email-templates.js';
import type { StoredEmailTemplate } from './email-templates.js';

export const TEMPLATE_COLUMNS = 'email_id, subject, body, enabled, updated_at';
export const LAYOUT_COLUMNS = 'logo_url, primary_color, footer, from_name, reply_to';

export const decodeTemplate = rowDecoder(
  'email template',
  Type.Object({ email_id: OneOf(EMAIL_IDS), subject: Text, body: Text, enabled: Flag, updated_at: Text }),
  (r): StoredEmailTemplate => ({ id: r.email_id, subject: r.subject, body: r.body, enabled: r.enabled === 1, updatedAt: r.updated_at }),
);

export const decodeLayout = rowDecoder(
  'email layout',
  Type.Object({ logo_url: Nullable(Text), primary_color: Text, footer: Text, from_name: Nullable(Text), reply_to: Nullable(Text) }),
  (r): EmailLayout => ({ logoUrl: r.logo_url, primaryColor: r.primary_color, footer: r.footer, fromName: r.from_name, replyTo: r.reply_to }),
);

/** The layout's values in LAYOUT_COLUMNS' order. */
export const layoutValues = (l: EmailLayout): Array<string | null> => [l.logoUrl, l.primaryColor, l.footer, l.fromName, l.replyTo];
