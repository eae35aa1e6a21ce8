// The contract of the sign-in page's branding: images kept once per content with their bytes and type, the one
// branding row stored and replaced with its audit entry (the "before" being what the save replaced), and a logo
// naming no uploaded image refused with nothing written.
import { at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { JsonValue } from '../../../shared/domain/audit-log.js';
import { brandingImageIdOf } from '../../../shared/domain/branding.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const audit = (before: unknown): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'ternmail CLI (test)',
  action: 'branding.save',
  target: { kind: 'platform', id: 'sign_in.branding' },
  before: before === undefined ? null : (JSON.parse(JSON.stringify(before)) as JsonValue),
  after: null,
  reason: '',
  at: at(0),
});

export const brandingChecks: ContractCheck[] = [
  check('an image is kept once per content, with its bytes, type and uploader', async (t, engine) => {
    const { store } = await engine.open(t);
    const operator = await operatorOf(store, 'brand-op@example.com');
    const id = brandingImageIdOf(PNG);
    t.equal(await store.branding.image(id), undefined, 'none before the upload');
    const first = await store.branding.addImage({ id, contentType: 'image/png', content: PNG, uploadedBy: operator.id, createdAt: at(1) });
    t.same(first, { id, contentType: 'image/png', content: PNG, uploadedBy: operator.id, createdAt: at(1) });
    const again = await store.branding.addImage({ id, contentType: 'image/png', content: PNG, uploadedBy: null, createdAt: at(2) });
    t.equal(again.createdAt, at(1), 'the same content again is the first upload');
    t.ok((await store.branding.image(id))!.content.equals(PNG), 'the bytes as sent');
  }),

  check('the branding is stored once and replaced whole, each save audited with what it replaced', async (t, engine) => {
    const { store } = await engine.open(t);
    t.equal(await store.branding.settings(), undefined, 'none until saved');
    const id = brandingImageIdOf(PNG);
    await store.branding.addImage({ id, contentType: 'image/png', content: PNG, uploadedBy: null, createdAt: at(0) });
    const first = { logoImageId: id, backgroundColor: '#112233', buttonColor: '#aabbcc', message: 'Welcome' };
    t.same(await store.branding.putSettings(first, at(1), audit), { ok: true, before: undefined });
    t.same(await store.branding.settings(), { ...first, updatedAt: at(1) });
    const plain = { logoImageId: null, backgroundColor: null, buttonColor: null, message: '' };
    t.same(await store.branding.putSettings(plain, at(2), audit), { ok: true, before: { ...first, updatedAt: at(1) } });
    t.same(await store.branding.settings(), { ...plain, updatedAt: at(2) });
    const entries = (await store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 10 })).rows;
    t.same(
      entries.map((e) => e.action),
      ['branding.save', 'branding.save'],
    );
    t.match(entries[0]!.before, { message: 'Welcome' }, "the second save's entry holds the branding it replaced");
  }),

  check('a logo naming no uploaded image is refused, and neither the branding nor the audit log changes', async (t, engine) => {
    const { store } = await engine.open(t);
    const refused = await store.branding.putSettings({ logoImageId: 'f'.repeat(32), backgroundColor: null, buttonColor: null, message: 'x' }, at(1), audit);
    t.same(refused, { ok: false, reason: 'unknown_image' });
    t.equal(await store.branding.settings(), undefined);
    t.equal((await store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 10 })).rows.length, 0);
  }),
];
