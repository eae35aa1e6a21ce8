// The contract of email templates: an email's edit stored and replaced, dropped back to the default, the layout
// stored once; each change recorded with its audit entry (the "before" being what the change replaced).
import { at, check, type ContractCheck } from './fixtures.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { AuditAction } from '../../../shared/domain/audit-log.js';
import type { JsonValue } from '../../../shared/domain/audit-log.js';

const audit =
  (action: AuditAction) =>
  (before: unknown): NewAuditEntry => ({
    operatorId: null,
    operatorEmail: 'ternmail CLI (test)',
    action,
    target: { kind: 'platform', id: 'email.test' },
    before: before === undefined ? null : (JSON.parse(JSON.stringify(before)) as JsonValue),
    after: null,
    reason: '',
    at: at(0),
  });

export const emailTemplateChecks: ContractCheck[] = [
  check('an email’s edit is stored, replaced and dropped, each change audited with what it replaced', async (t, engine) => {
    const { store } = await engine.open(t);
    t.same(await store.emailTemplates.list(), []);
    t.equal(await store.emailTemplates.get('invitation'), undefined, 'none until edited');
    const first = { subject: 'Join {{account.name}}', body: '<p>{{invitation.url}}</p>', enabled: true };
    t.equal(await store.emailTemplates.put('invitation', first, at(1), audit('email_template.save')), undefined, 'nothing before');
    t.same(await store.emailTemplates.get('invitation'), { id: 'invitation', ...first, updatedAt: at(1) });
    const second = { ...first, subject: 'Welcome' };
    t.match(await store.emailTemplates.put('invitation', second, at(2), audit('email_template.save')), first, 'the edit it replaced');
    await store.emailTemplates.put('lockout_notice', { subject: 's', body: 'b', enabled: false }, at(3), audit('email_template.save'));
    t.same(
      (await store.emailTemplates.list()).map((e) => [e.id, e.enabled]),
      [
        ['invitation', true],
        ['lockout_notice', false],
      ],
    );
    t.match(await store.emailTemplates.remove('invitation', audit('email_template.reset')), second);
    t.equal(await store.emailTemplates.remove('invitation', audit('email_template.reset')), undefined, 'dropped once');
    const entries = (await store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 10 })).rows;
    t.same(
      entries.map((e) => e.action),
      ['email_template.reset', 'email_template.reset', 'email_template.save', 'email_template.save', 'email_template.save'],
    );
    t.match(entries[1]!.before, { subject: 'Welcome' }, "the reset's entry holds the edit it dropped");
  }),

  check('the layout is stored once and replaced whole', async (t, engine) => {
    const { store } = await engine.open(t);
    t.equal(await store.emailTemplates.layout(), undefined);
    const layout = { logoUrl: 'https://cdn.example.com/logo.png', primaryColor: '#112233', footer: 'Acme, 1 Road', fromName: 'Acme mail', replyTo: 'help@example.com' };
    t.equal(await store.emailTemplates.putLayout(layout, at(1), audit('email_layout.save')), undefined);
    const plain = { ...layout, logoUrl: null, fromName: null, replyTo: null };
    t.same(await store.emailTemplates.putLayout(plain, at(2), audit('email_layout.save')), layout);
    t.same(await store.emailTemplates.layout(), plain);
  }),
];
