// The contract of the password-reset repository: links found by their token's hash, a new link removing the
// user's unused ones (not its used ones, nor another user's), and a link used once, before it expires, setting
// the user's password in the same change; of two uses at once, one only.
import { createHash } from 'node:crypto';
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { User } from '../../../shared/domain/user.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const AT = '2024-01-10T10:00:00.000Z';
const LATER = '2024-01-10T10:30:00.000Z';
const EXPIRES = '2024-01-10T11:00:00.000Z';

async function userOf(store: Store, email: string): Promise<User> {
  const account = await accountOf(store);
  const user = await store.users.create({ email, name: '', role: 'admin', teamId: account.id, passwordHash: '$argon2id$old', mustChangePassword: true });
  if (user === 'email_taken') throw new Error(`${email} is taken`);
  return user;
}

const linkOf = (userId: number, token: string, expiresAt = EXPIRES) => ({ userId, tokenHash: sha(token), at: AT, expiresAt });

export const passwordResetChecks: ContractCheck[] = [
  check("a link is found by its token's hash; a new one removes the user's unused links, not its used ones nor another user's", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    const bob = await userOf(store, 'bob@example.com');
    const first = await store.passwordResets.create(linkOf(ada.id, 'one'));
    t.same(first, { userId: ada.id, createdAt: AT, expiresAt: EXPIRES, usedAt: null });
    t.same(await store.passwordResets.findByTokenHash(sha('one')), first);
    t.equal(await store.passwordResets.findByTokenHash(sha('unknown')), undefined);
    await store.passwordResets.create(linkOf(bob.id, 'bobs'));
    t.ok(await store.passwordResets.use(sha('one'), '$argon2id$new', LATER));
    await store.passwordResets.create(linkOf(ada.id, 'two'));
    await store.passwordResets.create(linkOf(ada.id, 'three'));
    t.equal(await store.passwordResets.findByTokenHash(sha('two')), undefined, 'the unused link is replaced');
    t.match(await store.passwordResets.findByTokenHash(sha('one')), { usedAt: LATER }, 'the used one stays');
    t.ok(await store.passwordResets.findByTokenHash(sha('three')));
    t.ok(await store.passwordResets.findByTokenHash(sha('bobs')), "another user's link stays");
    t.equal(await store.passwordResets.remove(sha('three')), true);
    t.equal(await store.passwordResets.remove(sha('three')), false, 'removed once');
    t.equal(await store.passwordResets.findByTokenHash(sha('three')), undefined);
  }),

  check("using a link sets the user's password and clears the must-change flag, once, and only before it expires", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    await store.passwordResets.create(linkOf(ada.id, 'late', '2024-01-10T10:15:00.000Z'));
    t.equal(await store.passwordResets.use(sha('late'), '$argon2id$late', LATER), undefined, 'expired');
    t.equal(await store.passwordResets.use(sha('unknown'), '$argon2id$x', LATER), undefined, 'unknown');
    t.equal(await store.users.passwordHash(ada.id), '$argon2id$old', 'nothing changed');
    t.equal((await store.users.get(ada.id))?.mustChangePassword, true);

    await store.passwordResets.create(linkOf(ada.id, 'good'));
    t.same(await store.passwordResets.use(sha('good'), '$argon2id$new', LATER), { userId: ada.id, createdAt: AT, expiresAt: EXPIRES, usedAt: LATER });
    t.equal(await store.users.passwordHash(ada.id), '$argon2id$new');
    t.equal((await store.users.get(ada.id))?.mustChangePassword, false);
    t.equal(await store.passwordResets.use(sha('good'), '$argon2id$again', LATER), undefined, 'used once');
    t.equal(await store.users.passwordHash(ada.id), '$argon2id$new');
  }),

  check('of two uses of one link at once, one only sets the password', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    await store.passwordResets.create(linkOf(ada.id, 'raced'));
    const uses = await Promise.all(['$argon2id$a', '$argon2id$b'].map((hash) => store.passwordResets.use(sha('raced'), hash, LATER)));
    t.equal(uses.filter((u) => u !== undefined).length, 1);
    t.equal(await store.users.passwordHash(ada.id), uses[0] ? '$argon2id$a' : '$argon2id$b', "the winner's hash is the one kept");
  }),

  check('of several links made at once for one user, one only stays usable', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    const tokens = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    await Promise.all(tokens.map((token) => store.passwordResets.create(linkOf(ada.id, token))));
    const found = await Promise.all(tokens.map((token) => store.passwordResets.findByTokenHash(sha(token))));
    t.equal(found.filter((r) => r !== undefined).length, 1, 'each new one replaced the unused one before it');
  }),
];
