// The contract of the magic-link repository: a link used once, before it expires, naming its user; a new link
// removing the user's unused ones (not another user's); a link removed; of two uses at once, one only.
import { createHash } from 'node:crypto';
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { User } from '../../../shared/domain/user.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const AT = '2024-01-10T10:00:00.000Z';
const LATER = '2024-01-10T10:10:00.000Z';
const EXPIRES = '2024-01-10T10:15:00.000Z';
const AFTER = '2024-01-10T10:20:00.000Z';

async function userOf(store: Store, email: string): Promise<User> {
  const account = await accountOf(store);
  const user = await store.users.create({ email, name: '', role: 'viewer', teamId: account.id, passwordHash: '$argon2id$x', mustChangePassword: false });
  if (user === 'email_taken') throw new Error(`${email} is taken`);
  return user;
}

const linkOf = (userId: number, token: string) => ({ userId, tokenHash: sha(token), at: AT, expiresAt: EXPIRES });

export const magicLinkChecks: ContractCheck[] = [
  check('a link signs in once, before it expires, naming its user; an unknown one names nobody', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    await store.magicLinks.create(linkOf(ada.id, 'one'));
    t.equal(await store.magicLinks.use(sha('unknown'), LATER), undefined);
    t.equal(await store.magicLinks.use(sha('one'), LATER), ada.id);
    t.equal(await store.magicLinks.use(sha('one'), LATER), undefined, 'used once');
    await store.magicLinks.create(linkOf(ada.id, 'two'));
    t.equal(await store.magicLinks.use(sha('two'), EXPIRES), undefined, 'not at its expiry');
    t.equal(await store.magicLinks.use(sha('two'), AFTER), undefined, 'nor after');
  }),

  check("a new link removes the user's unused links, not another user's; a link is removed once", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    const bob = await userOf(store, 'bob@example.com');
    await store.magicLinks.create(linkOf(ada.id, 'one'));
    await store.magicLinks.create(linkOf(bob.id, 'bobs'));
    await store.magicLinks.create(linkOf(ada.id, 'two'));
    t.equal(await store.magicLinks.use(sha('one'), LATER), undefined, 'replaced by the newer link');
    t.equal(await store.magicLinks.remove(sha('two')), true);
    t.equal(await store.magicLinks.remove(sha('two')), false, 'removed once');
    t.equal(await store.magicLinks.use(sha('two'), LATER), undefined);
    t.equal(await store.magicLinks.use(sha('bobs'), LATER), bob.id, "another user's link stays");
  }),

  check('of uses of one link at once, one only signs in', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await userOf(store, 'ada@example.com');
    await store.magicLinks.create(linkOf(ada.id, 'race'));
    const uses = await Promise.all(Array.from({ length: 8 }, () => store.magicLinks.use(sha('race'), LATER)));
    t.same(
      uses.filter((u) => u !== undefined),
      [ada.id],
    );
  }),
];
