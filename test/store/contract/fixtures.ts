// What the contract's checks share: the engine under test, and short ways to make accounts, domains and messages.
import { recordOne } from '../../../shared/intake/record.js';
import type { Test } from 'tap';
import type { Store } from '../../../shared/store/index.js';
import type { StoreTestSupport } from '../../../shared/store/test-support.js';
import type { NewMessage, NewRecipient } from '../../../shared/store/message-log.js';
import type { AttemptResult } from '../../../shared/store/queue.js';
import { figuresOfNew } from '../../../shared/domain/figures.js';
import { messageStatusOf } from '../../../shared/domain/queue-state.js';
import { payerIdOf, type Team } from '../../../shared/domain/team.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import type { Operator } from '../../../shared/domain/user.js';

export interface ContractEngine {
  name: string;
  /** A new, empty store and its test support, both closed (and their data removed) when `t` ends. */
  open(t: Test): Promise<{ store: Store; support: StoreTestSupport }>;
}

/** One check of the contract: a behaviour every engine must show, run on a store of its own. */
export interface ContractCheck {
  name: string;
  run: (t: Test, engine: ContractEngine) => Promise<void>;
}

export const check = (name: string, run: ContractCheck['run']): ContractCheck => ({ name, run });

export async function accountOf(store: Store, credits = 100, name = 'Account'): Promise<Team> {
  return store.teams.createAccount({ name, credits, limitPerSecond: 10, planType: 'free', backendRegion: 'eu' });
}

/** A child team of `account`. */
export async function teamOf(store: Store, account: Team, name = 'Team'): Promise<Team> {
  const team = await store.teams.createTeam(account, name, 100);
  if (team === 'limit_reached') throw new Error(`${account.name} has too many teams`);
  return team;
}

export async function domainOf(store: Store, team: Team, name: string): Promise<Domain> {
  const domain = await store.domains.create({ teamId: team.id, name, dkimSelector: 'tern', dkimPublicKey: 'pub', dkimPrivateKeyEnc: 'sealed' });
  if (domain === 'exists') throw new Error(`${name} is taken`);
  return domain;
}

/** A platform operator (a user on no team). */
export async function operatorOf(store: Store, email: string): Promise<Operator> {
  const user = await store.users.create({ email, name: 'Op', role: 'operator', passwordHash: '$argon2id$fake', mustChangePassword: false });
  if (user === 'email_taken' || user.role !== 'operator') throw new Error(`${email} is taken`);
  return user;
}

export const recipient = (email: string, state: NewRecipient['state'] = 'queued', name = ''): NewRecipient => ({
  email,
  name,
  kind: 'to',
  domain: email.split('@')[1]!,
  state,
  reason: state === 'queued' ? '' : `not sent: ${state}`,
});

let sequence = 0;

/** A message of `team`; it costs one credit per queued recipient. */
export function messageOf(team: Team, fields: Partial<NewMessage> & { recipients: NewRecipient[] }): NewMessage {
  const id = fields.id ?? `msg${++sequence}x${Date.now().toString(36)}`;
  const body = Buffer.from(`Subject: ${fields.subject ?? 'Hello'}\r\n\r\nbody\r\n`);
  return {
    id,
    teamId: team.id,
    payerId: payerIdOf(team),
    domainId: null,
    sendingKeyId: null,
    source: 'http',
    envelopeFrom: 'bounces@one.test',
    fromEmail: 'news@one.test',
    fromName: 'News',
    subject: 'Hello',
    to: fields.recipients.filter((r) => r.kind === 'to').map((r) => ({ email: r.email, ...(r.name ? { name: r.name } : {}) })),
    replyTo: null,
    messageIdHeader: `<${id}@one.test>`,
    size: body.length,
    hasAttachments: false,
    headers: {},
    body,
    cost: fields.recipients.filter((r) => r.state === 'queued').length,
    error: null,
    status: messageStatusOf(fields.recipients.map((r) => r.state)),
    figures: figuresOfNew(
      id,
      fields.recipients.map((r) => r.state),
    ),
    ...fields,
  };
}

/** Records a message and answers its queued recipients' ids; fails the test run when the account cannot pay. */
export async function record(store: Store, message: NewMessage): Promise<number[]> {
  const outcome = await recordOne(store.transaction, message);
  if (outcome === 'insufficient_balance') throw new Error(`${message.id}: the account cannot pay`);
  return outcome.map((r) => r.id);
}

/** An ISO time `hours` after a fixed day, in the past. */
export const at = (hours: number): string => new Date(Date.UTC(2024, 0, 10) + hours * 3_600_000).toISOString();

/** A message of `team` to `emails` (from `domainId`, if given), recorded and leased at once under `token` until `until`. */
export async function leasedMessage(
  store: Store,
  team: Team,
  emails: string[],
  token: string,
  o: { domainId?: string; until?: number } = {},
): Promise<{ messageId: string; ids: number[] }> {
  const message = messageOf(team, { recipients: emails.map((e) => recipient(e)), ...(o.domainId ? { domainId: o.domainId } : {}) });
  const ids = await record(store, message);
  const now = Date.now();
  if ((await store.queue.claim(ids, now, o.until ?? now + 60_000, token)).length !== ids.length) throw new Error('a new message is due at once');
  return { messageId: message.id, ids };
}

/** A delivery attempt's result under `leaseToken`; a deferral is due again in a minute unless `extra` says when. */
export const attemptResult = (recipientId: number, leaseToken: string, to: AttemptResult['to'], extra: Partial<AttemptResult> = {}): AttemptResult => ({
  recipientId,
  leaseToken,
  to,
  reply: `${to} reply`,
  mxHost: null,
  ip: null,
  ...(to === 'deferred' ? { nextAttemptAt: Date.now() + 60_000 } : {}),
  ...extra,
});
