// The contract of sign-in with a provider: a provider's settings stored, replaced and audited with what they
// replaced (the sealed secret stored as given); a subject linked to one user only (the first link stands), links
// found by provider and subject.
import { accountOf, at, check, type ContractCheck } from './fixtures.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { SocialProviderSettings } from '../../../shared/domain/social-sign-in.js';

const audit = (before: SocialProviderSettings | undefined): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'ternmail CLI (test)',
  action: 'social_sign_in.save',
  target: { kind: 'platform', id: 'social_sign_in.google' },
  before: before === undefined ? null : { enabled: before.enabled },
  after: null,
  reason: '',
  at: at(0),
});

export const socialSignInChecks: ContractCheck[] = [
  check('a provider’s settings are stored and replaced, each save audited with what it replaced', async (t, engine) => {
    const { store } = await engine.open(t);
    t.same(await store.socialSignIn.providers(), []);
    t.equal(await store.socialSignIn.provider('google'), undefined);
    const google: SocialProviderSettings = {
      provider: 'google',
      enabled: true,
      clientId: 'client-1',
      clientSecretEnc: 'v1:sealed',
      issuer: 'https://accounts.google.com',
      updatedAt: at(1),
    };
    t.equal(await store.socialSignIn.putProvider(google, audit), undefined, 'nothing before');
    t.same(await store.socialSignIn.provider('google'), google);
    const off = { ...google, enabled: false, clientSecretEnc: null, updatedAt: at(2) };
    t.same(await store.socialSignIn.putProvider(off, audit), google, 'the settings it replaced');
    const github: SocialProviderSettings = { provider: 'github', enabled: true, clientId: 'gh', clientSecretEnc: 'v1:x', issuer: null, updatedAt: at(3) };
    await store.socialSignIn.putProvider(github, audit);
    t.same(await store.socialSignIn.providers(), [github, off], 'by provider');
    const entries = (await store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 10 })).rows;
    t.same(
      entries.map((e) => [e.action, e.before]),
      [
        ['social_sign_in.save', null],
        ['social_sign_in.save', { enabled: true }],
        ['social_sign_in.save', null],
      ],
    );
  }),

  check('a subject links one user: the first link stands, per provider', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const made = (email: string) => store.users.create({ teamId: account.id, email, name: email, role: 'admin', passwordHash: 'x', mustChangePassword: false });
    const [ada, bob] = [await made('ada@example.com'), await made('bob@example.com')];
    if (ada === 'email_taken' || bob === 'email_taken') throw new Error('users taken');
    t.equal(await store.socialSignIn.linkOf('google', 'sub-1'), undefined);
    t.same(await store.socialSignIn.link({ provider: 'google', subject: 'sub-1', userId: ada.id, linkedAt: at(1) }), {
      provider: 'google',
      subject: 'sub-1',
      userId: ada.id,
      linkedAt: at(1),
    });
    const second = await store.socialSignIn.link({ provider: 'google', subject: 'sub-1', userId: bob.id, linkedAt: at(2) });
    t.equal(second.userId, ada.id, 'a second link of the subject leaves the first');
    t.equal(await store.socialSignIn.linkOf('google', 'sub-1'), ada.id);
    t.equal(await store.socialSignIn.linkOf('github', 'sub-1'), undefined, 'a subject is per provider');
    await store.socialSignIn.link({ provider: 'github', subject: 'sub-1', userId: bob.id, linkedAt: at(3) });
    t.equal(await store.socialSignIn.linkOf('github', 'sub-1'), bob.id);
  }),
];
