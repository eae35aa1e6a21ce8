// The mail Tern sends itself, as operators edit it (tern-auth/v1 /wp-default-emails, FluentAuth's names): the
// emails and their state, one email with its smartcodes and default, a preview with sample values, saving or
// resetting an email, and the layout around all of them. Operators only. Translation only: core/email-templates.ts decides.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { sentAsNull } from './params.js';
import { EMAIL_IDS, type EmailLayout } from '../../../shared/domain/email-templates.js';
import type { EmailDetail, EmailSummary } from '../../../shared/core/email-templates.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'tern-auth/v1';

const summaryView = (e: EmailSummary) => ({
  name: e.id,
  title: e.definition.title,
  description: e.definition.description,
  recipient: e.definition.recipient,
  can_disable: e.definition.canDisable,
  required_smartcodes: e.definition.required.map((c) => `{{${c}}}`),
  status: e.enabled ? 'active' : 'disabled',
  edited: e.edited,
});

const detailView = (e: EmailDetail) => ({
  email: summaryView(e),
  settings: { subject: e.template.subject, body: e.template.body, status: e.template.enabled ? 'active' : 'disabled' },
  smartcodes: Object.entries(e.definition.smartcodes).map(([code, s]) => ({ code: `{{${code}}}`, description: s.description, sample: s.sample })),
  default_content: { subject: e.default.subject, body: e.default.body },
});

const layoutView = (l: EmailLayout) => ({ logo_url: l.logoUrl, primary_color: l.primaryColor, footer: l.footer, from_name: l.fromName, reply_to: l.replyTo });

const emailId = oneOf(EMAIL_IDS, { description: 'Which email: one of the names GET /wp-default-emails lists.' });
const draft = Type.Object({ subject: Type.String({ maxLength: 300 }), body: Type.String({ maxLength: 20_000 }) });

const list: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The emails Tern sends itself: what each is for, who gets it, whether it may be off and is, its required smartcodes (operators)',
      args: Type.Object({}),
      async handle({ ctx, user }) {
        operatorOf(user);
        return { body: { emailIndexes: (await ctx.core.emailTemplates.list()).map(summaryView) } };
      },
    }),
  ],
};

const find: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails/find-email',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'One email: its wording in use, its smartcodes with samples, and its default wording (operators)',
      args: Type.Object({ email_id: emailId }),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: detailView(valueOf(await ctx.core.emailTemplates.find(params.email_id))) };
      },
    }),
  ],
};

const preview: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails/preview',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'A draft rendered with sample values in the saved layout: subject, HTML and the generated text (operators); nothing is saved',
      args: Type.Object({ email_id: emailId, email_data: draft }),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: { rendered_email: valueOf(await ctx.core.emailTemplates.preview(params.email_id, params.email_data)) } };
      },
    }),
  ],
};

const save: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails/save-email-settings',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Saves an email’s subject, body and status (its required smartcodes kept), or with reset=true puts its default back (operators; audited)',
      args: Type.Object({
        email_id: emailId,
        email_data: Type.Optional(Type.Object({ ...draft.properties, status: Type.Optional(oneOf(['active', 'disabled'] as const)) })),
        reset: Type.Boolean({ default: false, description: 'Put the default wording back, sent again (email_data is then ignored).' }),
      }),
      async handle({ ctx, user, params, log }) {
        const { user: operator } = operatorOf(user);
        if (params.reset) return { body: detailView(valueOf(await ctx.core.emailTemplates.reset(operator, params.email_id, log))) };
        if (!params.email_data) return { body: detailView(valueOf(await ctx.core.emailTemplates.find(params.email_id))) };
        const { subject, body, status } = params.email_data;
        const saved = await ctx.core.emailTemplates.save(operator, params.email_id, { subject, body, enabled: status !== 'disabled' }, log);
        return { body: detailView(valueOf(saved)) };
      },
    }),
  ],
};

const layoutArgs = Type.Object({
  logo_url: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 500 })], { description: 'An https URL of the logo shown above every email (null: none).' })),
  primary_color: Type.Optional(Type.String({ maxLength: 7, description: 'Links and the top rule, as #rrggbb.' })),
  footer: Type.Optional(Type.String({ maxLength: 1000, description: 'Plain text under every email.' })),
  from_name: Type.Optional(
    Type.Union([Type.Null(), Type.String({ maxLength: 100 })], { description: 'The display name emails are sent under (null: the configuration’s).' }),
  ),
  reply_to: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 254 })], { description: 'Where replies go (null: none).' })),
});

const layout: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails/template-settings',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The layout around every email Tern sends itself: logo, colour, footer, from name, reply-to (operators)',
      args: Type.Object({}),
      async handle({ ctx, user }) {
        operatorOf(user);
        return { body: layoutView(await ctx.core.emailTemplates.layout()) };
      },
    }),
  ],
};

const saveLayout: Route = {
  namespace: NAMESPACE,
  path: '/wp-default-emails/save-template-settings',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Changes the layout around every email; each value checked, nothing changes when one is wrong (operators; audited)',
      args: layoutArgs,
      async handle({ ctx, user, params, request, log }) {
        const { user: operator } = operatorOf(user);
        // A null reads as not given (WordPress's rule); these fields take null for "none", so the body is asked.
        const orNull = (value: string | null | undefined, field: string) => value ?? (sentAsNull(request.body, field) ? null : undefined);
        const change = {
          logoUrl: orNull(params.logo_url, 'logo_url'),
          primaryColor: params.primary_color,
          footer: params.footer,
          fromName: orNull(params.from_name, 'from_name'),
          replyTo: orNull(params.reply_to, 'reply_to'),
        };
        return { body: layoutView(valueOf(await ctx.core.emailTemplates.saveLayout(operator, change, log))) };
      },
    }),
  ],
};

export const emailTemplateRoutes: readonly Route[] = [list, find, preview, save, layout, saveLayout];
