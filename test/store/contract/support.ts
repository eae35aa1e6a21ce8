// The contract of SupportRepository: tickets opened with their uploader's unsent attachments, read and listed by
// team, status, search and order; responses fenced on the ticket's status (an agent's makes it active) and
// committed with their audit entry; closes and re-opens fenced on the status (of two at once, one wins); votes
// toggled in one write; attachments bound once; docs searched by title; the forwarding setting audited.
import { accountOf, at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { Team } from '../../../shared/domain/team.js';
import type { Ticket } from '../../../shared/domain/support.js';
import type { User } from '../../../shared/domain/user.js';

let counter = 0;

/** A moment `ms` after an hour from now: forwards are due from when they are written (the real clock). */
const BASE = Date.now() + 3_600_000;
const later = (ms: number): string => new Date(BASE + ms).toISOString();

async function customerOf(store: Store, team: Team): Promise<User> {
  const user = await store.users.create({
    email: `c${++counter}.${Date.now()}@example.com`,
    name: 'Cus Tomer',
    role: 'owner',
    teamId: team.id,
    passwordHash: '$argon2id$fake',
    mustChangePassword: false,
  });
  if (user === 'email_taken') throw new Error('taken');
  return user;
}

async function ticketOf(store: Store, team: Team, user: User, title = 'Bounces', attachmentIds: number[] = [], forward = false): Promise<Ticket> {
  const made = await store.support.openTicket({
    teamId: team.id,
    openedBy: user.id,
    title,
    content: `About ${title}`,
    product: null,
    priority: 'normal',
    attachmentIds,
    forward,
  });
  if (made === 'attachment_unknown') throw new Error('attachment unknown');
  return made;
}

const entry = (op: User, action: NewAuditEntry['action'], id: string, after: NewAuditEntry['after']): NewAuditEntry => ({
  operatorId: op.id,
  operatorEmail: op.email,
  action,
  target: { kind: 'ticket', id },
  before: null,
  after,
  reason: '',
  at: at(0),
});

export const supportChecks: ContractCheck[] = [
  check('a ticket is opened new with its opener, read through its team only, and listed by status, search and order', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const user = await customerOf(store, team);
    const first = await ticketOf(store, team, user, 'First 50% off');
    const second = await ticketOf(store, team, user, 'Second about DKIM');
    await ticketOf(store, other, await customerOf(store, other), 'Elsewhere');
    t.match(first, {
      teamId: team.id,
      openedBy: { id: user.id, email: user.email, name: 'Cus Tomer' },
      status: 'new',
      responseCount: 0,
      priority: 'normal',
      product: null,
      closedAt: null,
    });
    t.same(await store.support.getTicket(first.id, team.id), first);
    t.same(await store.support.getTicket(first.id), first, 'without a team: any');
    t.equal(await store.support.getTicket(first.id, other.id), undefined, 'not through another team');
    const base = { teamId: team.id, status: 'all' as const, orderBy: 'id' as const, order: 'asc' as const };
    const page = { page: 1, perPage: 10 };
    t.same(
      (await store.support.listTickets(base, page)).rows.map((x) => x.id),
      [first.id, second.id],
    );
    t.same(
      (await store.support.listTickets({ ...base, order: 'desc' }, page)).rows.map((x) => x.id),
      [second.id, first.id],
    );
    t.same(
      (await store.support.listTickets({ ...base, search: 'dkim' }, page)).rows.map((x) => x.id),
      [second.id],
      'search folds case',
    );
    t.same(
      (await store.support.listTickets({ ...base, search: '50%' }, page)).rows.map((x) => x.id),
      [first.id],
      'wildcards are literal',
    );
    t.equal((await store.support.listTickets({ ...base, teamId: undefined }, page)).total, 3, "an agent's list: every team's");
    await store.support.moveTicket(second.id, team.id, 'closed', user.id, null);
    t.same(
      (await store.support.listTickets({ ...base, status: 'open' }, page)).rows.map((x) => x.id),
      [first.id],
    );
    const closed = await store.support.listTickets({ ...base, status: 'closed' }, { page: 1, perPage: 1 });
    t.same([closed.rows.map((x) => x.id), closed.total], [[second.id], 1]);
  }),

  check("responses are added to an open ticket only, an agent's makes it active, and each agent's comes with its audit entry", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const ticket = await ticketOf(store, team, user);
    const mine = await store.support.respond(
      { ticketId: ticket.id, teamId: team.id, authorId: user.id, authorKind: 'customer', content: 'More', attachmentIds: [], forward: false },
      null,
    );
    t.match(mine, { authorKind: 'customer', content: 'More', feedback: null, author: { id: user.id } });
    t.equal((await store.support.getTicket(ticket.id))!.status, 'new', "a customer's response leaves the status");
    const answer = await store.support.respond({ ticketId: ticket.id, authorId: op.id, authorKind: 'agent', content: 'Answer', attachmentIds: [], forward: false }, (r) =>
      entry(op, 'ticket.respond', String(ticket.id), { response_id: r.id }),
    );
    if (typeof answer === 'string') throw new Error(answer);
    t.match(await store.support.getTicket(ticket.id), { status: 'active', responseCount: 2 });
    t.same(
      (await store.support.responsesOf(ticket.id)).map((r) => r.content),
      ['More', 'Answer'],
      'oldest first',
    );
    const audit = await store.auditLog.list({ targetKind: 'ticket', targetId: String(ticket.id) }, { page: 1, perPage: 10 });
    t.same(
      audit.rows.map((e) => [e.action, e.after]),
      [['ticket.respond', { response_id: answer.id }]],
    );
    const other = await accountOf(store);
    t.equal(
      await store.support.respond(
        { ticketId: ticket.id, teamId: other.id, authorId: user.id, authorKind: 'customer', content: 'x', attachmentIds: [], forward: false },
        null,
      ),
      'not_found',
    );
    await store.support.moveTicket(ticket.id, undefined, 'closed', op.id, null);
    t.equal(
      await store.support.respond({ ticketId: ticket.id, authorId: op.id, authorKind: 'agent', content: 'late', attachmentIds: [], forward: false }, null),
      'closed',
    );
    t.equal((await store.support.responsesOf(ticket.id)).length, 2, 'nothing added to a closed ticket');
  }),

  check('of two closes made at once one wins; a re-open needs a closed ticket; a move is committed with its audit entry', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const ticket = await ticketOf(store, team, user);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => store.support.moveTicket(ticket.id, team.id, 'closed', user.id, null)));
    t.equal(outcomes.filter((o) => typeof o !== 'string').length, 1, 'one close');
    t.equal(outcomes.filter((o) => o === 'closed').length, 4, 'the others find it closed');
    t.match(await store.support.getTicket(ticket.id), { status: 'closed', closedBy: user.id, closedAt: String });
    const reopened = await store.support.moveTicket(ticket.id, undefined, 'active', op.id, (before, after) => ({
      ...entry(op, 'ticket.reopen', String(ticket.id), { status: after.status }),
      before: { status: before.status },
    }));
    t.match(reopened, { status: 'active', closedBy: null, closedAt: null });
    t.equal(await store.support.moveTicket(ticket.id, undefined, 'active', op.id, null), 'not_closed');
    t.equal(await store.support.moveTicket(ticket.id, (await accountOf(store)).id, 'closed', user.id, null), 'not_found', 'not through another team');
    const audit = await store.auditLog.list({ action: 'ticket.reopen' }, { page: 1, perPage: 10 });
    t.same(
      audit.rows.map((e) => [e.before, e.after]),
      [[{ status: 'closed' }, { status: 'active' }]],
    );
  }),

  check('a close and a response made at once: the response lands before the close, or is refused as closed', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    for (let i = 0; i < 5; i++) {
      const ticket = await ticketOf(store, team, user, `race ${i}`);
      const [closed, response] = await Promise.all([
        store.support.moveTicket(ticket.id, team.id, 'closed', user.id, null),
        store.support.respond(
          { ticketId: ticket.id, teamId: team.id, authorId: user.id, authorKind: 'customer', content: 'race', attachmentIds: [], forward: false },
          null,
        ),
      ]);
      t.not(typeof closed, 'string', 'the close wins either way');
      const after = await store.support.getTicket(ticket.id);
      const responses = await store.support.responsesOf(ticket.id);
      t.equal(after!.responseCount, responses.length, 'the count matches the responses');
      if (response === 'closed') t.equal(responses.length, 0);
      else t.ok(responses[0]!.createdAt <= after!.closedAt!, 'the response came before the close');
    }
  }),

  check("a vote is set, changed and removed by the same vote again, on an agent's response only", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const ticket = await ticketOf(store, team, user);
    const answer = await store.support.respond({ ticketId: ticket.id, authorId: op.id, authorKind: 'agent', content: 'A', attachmentIds: [], forward: false }, null);
    const own = await store.support.respond({ ticketId: ticket.id, authorId: user.id, authorKind: 'customer', content: 'B', attachmentIds: [], forward: false }, null);
    if (typeof answer === 'string' || typeof own === 'string') throw new Error('not added');
    t.same(await store.support.vote(ticket.id, answer.id, 'like'), { feedback: 'like' });
    t.same(await store.support.vote(ticket.id, answer.id, 'dislike'), { feedback: 'dislike' });
    t.same(await store.support.vote(ticket.id, answer.id, 'dislike'), { feedback: null });
    t.equal(await store.support.vote(ticket.id, own.id, 'like'), 'not_found', "a customer's response");
    const elsewhere = await ticketOf(store, team, user, 'other');
    t.equal(await store.support.vote(elsewhere.id, answer.id, 'like'), 'not_found', 'another ticket');
    t.equal((await store.support.responsesOf(ticket.id))[0]!.feedback, null);
  }),

  check("attachments are kept with their bytes, bound once to their uploader's ticket or response, and read back through that ticket only", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    const other = await customerOf(store, team);
    const content = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const a = await store.support.addAttachment({ uploadedBy: user.id, fileName: 'shot.png', contentType: 'image/png', content });
    t.match(a, { uploadedBy: user.id, ticketId: null, responseId: null, fileName: 'shot.png', contentType: 'image/png', size: 8 });
    const b = await store.support.addAttachment({ uploadedBy: user.id, fileName: 'b.txt', contentType: 'text/plain', content: Buffer.from('b') });
    const c = await store.support.addAttachment({ uploadedBy: other.id, fileName: 'c.txt', contentType: 'text/plain', content: Buffer.from('c') });
    const refused = await store.support.openTicket({
      teamId: team.id,
      openedBy: user.id,
      title: 't',
      content: 'c',
      product: null,
      priority: 'normal',
      attachmentIds: [a.id, c.id],
      forward: false,
    });
    t.equal(refused, 'attachment_unknown', "another user's upload");
    t.equal((await store.support.listTickets({ teamId: team.id, status: 'all', orderBy: 'id', order: 'asc' }, { page: 1, perPage: 10 })).total, 0, 'nothing opened');
    const ticket = await ticketOf(store, team, user, 'with a file', [a.id]);
    t.equal(
      await store.support.openTicket({
        teamId: team.id,
        openedBy: user.id,
        title: 't',
        content: 'c',
        product: null,
        priority: 'normal',
        attachmentIds: [a.id],
        forward: false,
      }),
      'attachment_unknown',
      'bound once',
    );
    const response = await store.support.respond(
      { ticketId: ticket.id, teamId: team.id, authorId: user.id, authorKind: 'customer', content: 'r', attachmentIds: [b.id], forward: false },
      null,
    );
    if (typeof response === 'string') throw new Error(response);
    t.same(
      (await store.support.attachmentsOf(ticket.id)).map((x) => [x.id, x.responseId]),
      [
        [a.id, null],
        [b.id, response.id],
      ],
    );
    const read = await store.support.attachmentContent(ticket.id, a.id);
    t.ok(read && read.content.equals(content), 'the same bytes');
    t.equal(await store.support.attachmentContent(ticket.id, c.id), undefined, 'not one of this ticket');
  }),

  check('uploads never sent are removed once older than the cut-off; sent ones are kept, and a removed upload cannot be sent', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const user = await customerOf(store, team);
    const upload = (name: string) => store.support.addAttachment({ uploadedBy: user.id, fileName: name, contentType: 'text/plain', content: Buffer.from(name) });
    const sent = await upload('sent.txt');
    const answered = await upload('answered.txt');
    const unsent = await upload('unsent.txt');
    const ticket = await ticketOf(store, team, user, 'kept', [sent.id]);
    await store.support.respond(
      { ticketId: ticket.id, teamId: team.id, authorId: user.id, authorKind: 'customer', content: 'r', attachmentIds: [answered.id], forward: false },
      null,
    );
    const past = new Date(Date.parse(unsent.createdAt) - 60_000).toISOString();
    t.equal(await store.support.removeUnsent(past), 0, 'nothing uploaded before the cut-off');
    const future = new Date(Date.now() + 60_000).toISOString();
    t.equal(await store.support.removeUnsent(future), 1, 'only the upload bound to nothing');
    t.same(
      (await store.support.attachmentsOf(ticket.id)).map((x) => x.id),
      [sent.id, answered.id],
      "the ticket's and the response's are kept",
    );
    const late = await store.support.openTicket({
      teamId: team.id,
      openedBy: user.id,
      title: 't',
      content: 'c',
      product: null,
      priority: 'normal',
      attachmentIds: [unsent.id],
      forward: false,
    });
    t.equal(late, 'attachment_unknown', 'a removed upload cannot be sent');
  }),

  check('docs are added with their audit entry and found by a part of the title, newest first, up to a limit', async (t, engine) => {
    const { store } = await engine.open(t);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const audit = (doc: { id: number }) => ({
      ...entry(op, 'support_doc.create', String(doc.id), { title: 'x' }),
      target: { kind: 'support_doc' as const, id: String(doc.id) },
    });
    const spf = await store.support.addDoc('Publishing SPF', 'https://docs.example.com/spf', op.id, audit);
    const dkim = await store.support.addDoc('Publishing DKIM_keys', 'https://docs.example.com/dkim', op.id, audit);
    t.match(spf, { title: 'Publishing SPF', link: 'https://docs.example.com/spf', createdAt: String });
    t.same(
      (await store.support.searchDocs('publishing', 10)).map((d) => d.id),
      [dkim.id, spf.id],
    );
    t.same(
      (await store.support.searchDocs('publishing', 1)).map((d) => d.id),
      [dkim.id],
    );
    t.same(
      (await store.support.searchDocs('DKIM_', 10)).map((d) => d.id),
      [dkim.id],
    );
    t.same(await store.support.searchDocs('M_k%', 10), [], 'wildcards are literal');
    t.equal((await store.auditLog.list({ action: 'support_doc.create' }, { page: 1, perPage: 10 })).total, 2);
  }),

  check('where tickets go is kept in Tern until set, then changed with an audit entry naming before and after', async (t, engine) => {
    const { store } = await engine.open(t);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    t.same(await store.support.settings(), { forwardUrl: null, forwardSecretEnc: null, updatedAt: null });
    const audit = (before: { forwardUrl: string | null }, after: { forwardUrl: string | null }): NewAuditEntry => ({
      ...entry(op, 'support.settings', 'support.api_settings', { forward_url: after.forwardUrl }),
      target: { kind: 'platform', id: 'support.api_settings' },
      before: { forward_url: before.forwardUrl },
    });
    const saved = await store.support.saveSettings({ forwardUrl: 'https://helpdesk.example.com/hook', forwardSecretEnc: 'sealed' }, op.id, audit);
    t.match(saved, { forwardUrl: 'https://helpdesk.example.com/hook', forwardSecretEnc: 'sealed', updatedAt: String });
    t.same(await store.support.settings(), saved);
    await store.support.saveSettings({ forwardUrl: null, forwardSecretEnc: null }, op.id, audit);
    const entries = await store.auditLog.list({ action: 'support.settings' }, { page: 1, perPage: 10 });
    t.same(
      entries.rows.map((e) => [e.before, e.after]),
      [
        [{ forward_url: 'https://helpdesk.example.com/hook' }, { forward_url: null }],
        [{ forward_url: null }, { forward_url: 'https://helpdesk.example.com/hook' }],
      ],
    );
  }),

  check('a ticket is assigned to an operator only (a user of an account is a miss), listed by assignee, unassigned, each with its audit entry', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const customer = await customerOf(store, team);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const other = await operatorOf(store, `op${++counter}@tern.test`);
    const ticket = await ticketOf(store, team, customer, 'Assign me');
    const spare = await ticketOf(store, team, customer, 'Nobody’s');
    t.equal(ticket.assignedTo, null, 'opened unassigned');
    const audit = (before: Ticket, after: Ticket): NewAuditEntry => ({
      ...entry(op, 'ticket.assign', String(ticket.id), { assigned_to: after.assignedTo?.id ?? null }),
      before: { assigned_to: before.assignedTo?.id ?? null },
    });
    t.equal(await store.support.assignTicket(ticket.id, customer.id, audit), 'not_operator', "an account's user is no agent");
    t.equal(await store.support.assignTicket(999_999, op.id, audit), 'not_found');
    t.match(await store.support.assignTicket(ticket.id, other.id, audit), { id: ticket.id, assignedTo: { id: other.id, email: other.email } });
    const base = { teamId: team.id, status: 'all' as const, orderBy: 'id' as const, order: 'asc' as const };
    const page = { page: 1, perPage: 10 };
    const ids = async (assigned: number | 'none') => (await store.support.listTickets({ ...base, assigned }, page)).rows.map((x) => x.id);
    t.same(await ids(other.id), [ticket.id]);
    t.same(await ids(op.id), []);
    t.same(await ids('none'), [spare.id]);
    t.match(await store.support.assignTicket(ticket.id, null, audit), { assignedTo: null });
    t.same(await ids('none'), [ticket.id, spare.id]);
    const entries = await store.auditLog.list({ action: 'ticket.assign' }, { page: 1, perPage: 10 });
    t.same(
      entries.rows.map((e) => [e.before, e.after]),
      [
        [{ assigned_to: other.id }, { assigned_to: null }],
        [{ assigned_to: null }, { assigned_to: other.id }],
      ],
      'one entry per assignment, none for a miss',
    );
  }),

  check('a forward is written with its ticket and each response only when asked, and none when the write is refused', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const customer = await customerOf(store, team);
    const op = await operatorOf(store, `op${++counter}@tern.test`);
    const quiet = await ticketOf(store, team, customer, 'Kept in Tern');
    const loud = await ticketOf(store, team, customer, 'Forwarded', [], true);
    t.same(await store.support.forwardsOf(quiet.id), [], 'not asked: no outbox row');
    const answer = { ticketId: loud.id, authorId: op.id, authorKind: 'agent' as const, content: 'On it', attachmentIds: [], forward: true };
    const response = await store.support.respond(answer, null);
    if (typeof response === 'string') throw new Error(response);
    await store.support.respond({ ...answer, attachmentIds: [424_242] }, null);
    t.match(await store.support.forwardsOf(loud.id), [
      { kind: 'ticket.created', ticketId: loud.id, responseId: null, state: 'pending', attempts: 0, lastError: null },
      { kind: 'ticket.response', ticketId: loud.id, responseId: response.id, state: 'pending', attempts: 0 },
    ]);
    t.equal((await store.support.forwardsOf(loud.id)).length, 2, 'the refused response (unknown attachment) left no row');
  }),

  check('a forward is claimed by one dispatcher at a time; a lease run out is taken over, and the old holder can no longer finish it', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const ticket = await ticketOf(store, team, await customerOf(store, team), 'Claimed', [], true);
    const now = later(0);
    const [first, second] = await Promise.all([store.support.claimForwards(10, now, later(60_000), 'a'), store.support.claimForwards(10, now, later(60_000), 'b')]);
    const mine = <R extends { ticketId: number }>(rows: R[]) => rows.filter((r) => r.ticketId === ticket.id);
    t.equal(mine(first).length + mine(second).length, 1, 'two claims of one row: one wins');
    const holder = mine(first).length ? 'a' : 'b';
    t.same(mine(await store.support.claimForwards(10, later(30_000), later(90_000), 'c')), [], 'a lease still running is not taken');
    const taken = mine(await store.support.claimForwards(10, later(61_000), later(120_000), 'c'));
    t.equal(taken.length, 1, 'a lease run out is taken over');
    t.equal(await store.support.finishForward(taken[0]!.id, holder, { kind: 'delivered' }), false, 'the old holder is fenced out');
    t.equal(await store.support.finishForward(taken[0]!.id, 'c', { kind: 'delivered' }), true);
    t.match(await store.support.forwardsOf(ticket.id), [{ state: 'delivered', attempts: 1, lastError: null }]);
    t.same(mine(await store.support.claimForwards(10, later(10_000_000), later(10_060_000), 'd')), [], 'a delivered forward is never claimed again');
  }),

  check('a failed attempt is due again at its retry time, counted, and a forward given up is failed for good', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const ticket = await ticketOf(store, team, await customerOf(store, team), 'Retried', [], true);
    const mine = <R extends { ticketId: number }>(rows: R[]) => rows.filter((r) => r.ticketId === ticket.id);
    const [row] = mine(await store.support.claimForwards(10, later(0), later(60_000), 'a'));
    t.equal(await store.support.finishForward(row!.id, 'a', { kind: 'retry', at: later(30_000), error: 'HTTP 500' }), true);
    t.match(await store.support.forwardsOf(ticket.id), [{ state: 'pending', attempts: 1, nextAttemptAt: later(30_000), lastError: 'HTTP 500' }]);
    t.same(mine(await store.support.claimForwards(10, later(29_000), later(89_000), 'b')), [], 'not due before its retry time');
    const [again] = mine(await store.support.claimForwards(10, later(30_000), later(90_000), 'b'));
    t.equal(again?.attempts, 1, 'due at its retry time, although the first lease has not run out');
    t.equal(await store.support.finishForward(again!.id, 'b', { kind: 'failed', error: 'gave up after 2 attempts' }), true);
    t.match(await store.support.forwardsOf(ticket.id), [{ state: 'failed', attempts: 2, lastError: 'gave up after 2 attempts' }]);
    t.same(mine(await store.support.claimForwards(10, later(10_000_000), later(10_060_000), 'c')), [], 'a failed forward is never claimed again');
  }),
];
