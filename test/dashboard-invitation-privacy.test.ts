// An invitation does not tell who else uses Tern: to an address that is another account's user or a platform
// operator's, it answers exactly as to a new address (201, an open invitation) and mails them nothing; only a
// user of the inviter's own account is refused, as one this account already has.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { signedInOn, type SignedIn, withSession } from './helpers/dashboard-session.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';

const w = await startMailWorld({ overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern' } } });
t.teardown(() => w.close());
const h = w.h;
const log = createLogger('test', 'silent');

const SEND = '/api/tern/v2/internal/send-invitation';
let counter = 0;
const address = (who: string) => `${who}-${++counter}-${process.pid}@dest.test`;

/** A user of `accountId` (or an operator, for none) at `email`, made as the CLI and the operator's pages make them. */
async function existingUser(email: string, accountId?: number): Promise<void> {
  const id = createIdentity(h.rt);
  const made = accountId === undefined ? await id.users.createOperator({ email }, log) : await id.users.create(accountId, { email, role: 'viewer' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
}

const invite = (s: SignedIn, email: string) => h.request<Record<string, unknown>>('POST', SEND, { ...withSession(s), body: { email, role: 'viewer' } });

/** An answer with what differs between any two invitations (ids, addresses, times) taken out. */
const shapeOf = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).map(([k, v]) => [k, ['id', 'email', 'message_id', 'created', 'expires'].includes(k) ? typeof v : v]));

t.test("an invitation to another account's user or to an operator answers as to a new address and mails nothing", async (t) => {
  const inviter = await signedInOn(h);
  const stranger = await h.account({ name: 'Elsewhere' });
  const elsewhere = address('elsewhere');
  await existingUser(elsewhere, stranger.id);
  const operator = address('operator');
  await existingUser(operator);

  const fresh = address('fresh');
  const control = await invite(inviter.session, fresh);
  t.equal(control.status, 201, control.text);
  for (const email of [elsewhere, operator, elsewhere.toUpperCase()]) {
    const reply = await invite(inviter.session, email);
    t.equal(reply.status, 201, `${email}: ${reply.text}`);
    t.same(shapeOf(reply.body), shapeOf(control.body), `${email}: the same answer as for a new address`);
    t.equal(reply.body.email, email);
  }
  // The invitation to the new address arrives; by then the others would have too.
  await mailTo(w.sink, fresh);
  const again = address('fresh');
  await invite(inviter.session, again);
  await mailTo(w.sink, again);
  t.equal(countTo(w.sink, elsewhere), 0, "nothing is mailed to another account's user");
  t.equal(countTo(w.sink, elsewhere.toUpperCase()), 0);
  t.equal(countTo(w.sink, operator), 0, 'nothing is mailed to an operator');
});

t.test("an invitation to another account's user is rate-limited per address as one to a new address is", async (t) => {
  const inviter = await signedInOn(h);
  const stranger = await h.account({ name: 'Elsewhere too' });
  const elsewhere = address('limited');
  await existingUser(elsewhere, stranger.id);
  const limit = h.config.systemMail.perRecipientPerHour;
  for (let i = 0; i < limit; i++) t.equal((await invite(inviter.session, elsewhere)).status, 201);
  const refused = await invite(inviter.session, elsewhere);
  t.match(refused, { status: 429, body: { code: 'rest_too_many_requests' } }, 'the same 429 a new address gets');
});

t.test("an invitation to a user of the inviter's own account says only that this account has that user", async (t) => {
  const inviter = await signedInOn(h);
  const member = address('member');
  await existingUser(member, inviter.accountId);
  const reply = await invite(inviter.session, member);
  t.match(reply, { status: 400, body: { code: 'existing_user_email', data: { params: { email: String } } } });
  t.match(String((reply.body.data as { params: { email: string } }).params.email), /this account/i, 'worded as this account’s user');
  t.equal(countTo(w.sink, member), 0);
});
