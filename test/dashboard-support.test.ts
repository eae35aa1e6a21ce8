// The support namespace (tern-support/v1) over real HTTP: an account's owner opens a ticket on its team, an
// operator sees every team's tickets and answers (audited, and the ticket active), the customer likes the answer
// (the same vote again removes it), closes and re-opens the ticket; a viewer reads but writes nothing, another
// account's ticket is not found, anonymous callers get 401, and bad input is refused naming the field. Operators
// assign tickets to operators (audited) and list them by assignee.
import t from 'tap';
import { sweepUnsentUploads } from '../shared/core/support/attachments.js';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
let operator: SignedIn;
let operatorEmail: string;

t.before(async () => {
  h = await startHarness();
  operatorEmail = await operatorOn(h);
  operator = await logIn(h, operatorEmail);
});
t.teardown(() => h.close());

const NS = '/api/tern-support/v1';
type Json = Record<string, UntypedJson>;

async function customer(role: 'owner' | 'admin' | 'viewer' = 'owner', accountId?: number): Promise<{ s: SignedIn; accountId: number; email: string }> {
  const id = accountId ?? (await h.account()).id;
  const email = await userOn(h, id, role);
  return { s: await logIn(h, email), accountId: id, email };
}

async function opened(s: SignedIn, body: Json = { title: 'Bounces from example.org', content: 'Every message to example.org bounces.' }): Promise<Json> {
  const made = await h.request('POST', `${NS}/tickets`, { ...withSession(s), body });
  if (made.status !== 201) throw new Error(made.text);
  return made.body as Json;
}

const post = (s: SignedIn | null, path: string, body: Json = {}) => h.request('POST', `${NS}${path}`, { ...(s ? withSession(s) : {}), body });
const get = (s: SignedIn | null, path: string) => h.request('GET', `${NS}${path}`, s ? withSession(s) : {});

t.test('the namespace index lists the support routes, and the REST index names the namespace', async (t) => {
  const index = await get(null, '');
  t.equal(index.status, 200);
  t.equal(index.body.namespace, 'tern-support/v1');
  const routes = Object.keys(index.body.routes as Json);
  for (const part of ['/tickets', 'responses', '/close', '/re-open', 'agent-feedback', '/assign'])
    t.ok(
      routes.some((k) => k.includes(part)),
      part,
    );
  t.ok(((await h.request('GET', '/api/')).body.namespaces as string[]).includes('tern-support/v1'));
});

t.test("a ticket's whole life: opened by the owner, answered by an operator, liked, closed and re-opened", async (t) => {
  const { s, accountId, email } = await customer();
  const ticket = await opened(s, { title: 'Bounces', content: 'Why?', product_id: 'sending', client_priority: 'critical' });
  t.match(ticket, { title: 'Bounces', status: 'new', product_id: 'sending', client_priority: 'critical', tenant_id: accountId, customer: { email }, response_count: 0 });
  const seen = await get(operator, `/tickets?filter_type=open&search=Bounces`);
  t.ok(
    (seen.body as Json[]).some((x) => x.id === ticket.id),
    "the operator sees every team's open tickets",
  );
  const answer = await post(operator, `/tickets/${ticket.id}/responses`, { content: 'Their server refuses: see the log.' });
  t.equal(answer.status, 201, answer.text);
  t.match(answer.body, { person_type: 'agent', content: 'Their server refuses: see the log.', approval_status: null });
  t.notOk('email' in (answer.body.person as Json), "an operator's email is not shown");
  const reply = await post(s, `/tickets/${ticket.id}/responses`, { content: 'Thanks!' });
  t.match(reply.body, { person_type: 'customer' });
  const read = await get(s, `/tickets/${ticket.id}`);
  t.match(read.body, { ticket: { id: ticket.id, status: 'active', response_count: 2, attachments: [] } });
  t.same(
    (read.body.responses as Json[]).map((r) => r.person_type),
    ['agent', 'customer'],
    'responses oldest first',
  );
  const like = await post(s, `/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'like' });
  t.same(like.body, { ticket_id: ticket.id, response_id: answer.body.id, approval_status: 'like' });
  const dislike = await post(s, `/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'dislike' });
  t.equal(dislike.body.approval_status, 'dislike', 'another vote replaces it');
  const again = await post(s, `/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'dislike' });
  t.equal(again.body.approval_status, null, 'the same vote again removes it');
  const closed = await post(s, `/tickets/${ticket.id}/close`);
  t.match(closed.body, { status: 'closed', closed_at: String });
  const late = await post(s, `/tickets/${ticket.id}/responses`, { content: 'One more thing' });
  t.equal(late.status, 409);
  t.match(late.body, { code: 'rest_support_ticket_closed' });
  t.match((await post(s, `/tickets/${ticket.id}/close`)).body, { code: 'rest_support_ticket_closed', data: { status: 409 } }, 'closing twice is refused');
  const reopened = await post(s, `/tickets/${ticket.id}/re-open`);
  t.match(reopened.body, { status: 'active', closed_at: null });
  t.match((await post(s, `/tickets/${ticket.id}/re-open`)).body, { code: 'rest_support_ticket_not_closed' });
});

t.test("an operator's responses, closes and re-opens are in the audit log; a customer's are on the ticket only", async (t) => {
  const { s, accountId } = await customer();
  const ticket = await opened(s);
  const answer = await post(operator, `/tickets/${ticket.id}/responses`, { content: 'Looking.' });
  await post(operator, `/tickets/${ticket.id}/close`);
  await post(operator, `/tickets/${ticket.id}/re-open`);
  await post(s, `/tickets/${ticket.id}/close`);
  const audit = await h.request('GET', `/api/tern/v2/admin/audit-log?target_kind=ticket&target_id=${String(ticket.id)}`, withSession(operator));
  t.match(audit.body, [
    { action: 'ticket.reopen', before: { status: 'closed', tenant_id: accountId }, after: { status: 'active' } },
    { action: 'ticket.close', before: { status: 'active' }, after: { status: 'closed' } },
    { action: 'ticket.respond', before: null, after: { response_id: answer.body.id } },
  ]);
  t.equal((audit.body as unknown[]).length, 3, "the customer's close is not an operator's action");
});

t.test('tickets are listed by filter, search and order, with the paging headers', async (t) => {
  const { s } = await customer();
  const a = await opened(s, { title: 'First 100% question', content: 'a' });
  const b = await opened(s, { title: 'Second', content: 'about DKIM' });
  const c = await opened(s, { title: 'Third', content: 'c' });
  await post(s, `/tickets/${b.id}/close`);
  const all = await get(s, '/tickets?per_page=2&orderby=id&order=asc');
  t.equal(all.headers.get('x-wp-total'), '3');
  t.equal(all.headers.get('x-wp-totalpages'), '2');
  t.same(
    (all.body as Json[]).map((x) => x.id),
    [a.id, b.id],
  );
  t.match(all.headers.get('link'), /rel="next"/);
  t.same(
    ((await get(s, '/tickets?filter_type=closed')).body as Json[]).map((x) => x.id),
    [b.id],
  );
  t.equal((await get(s, '/tickets?filter_type=open')).headers.get('x-wp-total'), '2');
  t.same(
    ((await get(s, '/tickets?search=dkim')).body as Json[]).map((x) => x.id),
    [b.id],
    'the text is searched, case folded',
  );
  t.same(
    ((await get(s, '/tickets?search=100%25')).body as Json[]).map((x) => x.id),
    [a.id],
    'wildcards are matched literally',
  );
  t.match((await get(s, '/tickets?page=9')).body, { code: 'rest_invalid_page_number' });
  const theirs = await get(operator, `/tickets?tenant_id=${String(a.tenant_id)}&orderby=id&order=asc`);
  t.same(
    (theirs.body as Json[]).map((x) => x.id),
    [a.id, b.id, c.id],
    "an operator's list of one tenant",
  );
  const elsewhere = await customer();
  t.equal((await get(elsewhere.s, `/tickets?tenant_id=${String(a.tenant_id)}`)).headers.get('x-wp-total'), '0', "an account user's list stays its own team's");
});

t.test('bad input is refused with the field named, and changes nothing', async (t) => {
  const { s } = await customer();
  const ticket = await opened(s);
  const cases: Array<[string, Json, string]> = [
    ['/tickets', { content: 'no title' }, 'title'],
    ['/tickets', { title: ' ', content: 'blank title' }, 'title'],
    ['/tickets', { title: 'x', content: 'y', product_id: 'coffee' }, 'product_id'],
    ['/tickets', { title: 'x', content: 'y', client_priority: 'urgent!' }, 'client_priority'],
    ['/tickets', { title: 'x', content: 'y', attachments: [999_999] }, 'attachments'],
    [`/tickets/${ticket.id}/responses`, { content: '' }, 'content'],
    [`/tickets/${ticket.id}/agent-feedback`, { response_id: 1, approval_status: 'love' }, 'approval_status'],
    [`/tickets/${ticket.id}/agent-feedback`, { approval_status: 'like' }, 'response_id'],
  ];
  for (const [path, body, field] of cases) {
    const reply = await post(s, path, body);
    t.equal(reply.status, 400, `${path} ${JSON.stringify(body)}`);
    const params = (reply.body.data as Json).params;
    t.ok(Array.isArray(params) ? (params as string[]).includes(field) : field in (params as Json), `${field} named: ${reply.text}`);
  }
  t.match((await get(s, '/tickets?filter_type=pending')).body, { code: 'rest_invalid_param', data: { params: { filter_type: String } } });
  t.equal((await get(s, '/tickets')).headers.get('x-wp-total'), '1', 'no ticket was opened by a refused request');
  const question = await post(s, `/tickets/${ticket.id}/responses`, { content: 'mine' });
  const own = await post(s, `/tickets/${ticket.id}/agent-feedback`, { response_id: question.body.id, approval_status: 'like' });
  t.equal(own.status, 404, "a customer's own response takes no vote");
  t.match(own.body, { code: 'rest_support_response_invalid_id' });
});

t.test('anonymous callers get 401 on every ticket route', async (t) => {
  const { s } = await customer();
  const ticket = await opened(s);
  for (const [method, path] of [
    ['GET', '/tickets'],
    ['POST', '/tickets'],
    ['GET', `/tickets/${ticket.id}`],
    ['POST', `/tickets/${ticket.id}/responses`],
    ['POST', `/tickets/${ticket.id}/close`],
    ['POST', `/tickets/${ticket.id}/re-open`],
    ['POST', `/tickets/${ticket.id}/agent-feedback`],
    ['POST', `/tickets/${ticket.id}/assign`],
  ] as const) {
    const body = { title: 't', content: 'c', response_id: 1, approval_status: 'like', agent_id: 1 };
    const reply = await h.request(method, `${NS}${path}`, method === 'POST' ? { body } : {});
    t.equal(reply.status, 401, `${method} ${path}`);
    t.match(reply.body, { code: 'rest_forbidden' });
  }
});

t.test("a viewer reads its team's tickets but changes nothing; an operator neither opens tickets nor votes", async (t) => {
  const owner = await customer();
  const viewer = await customer('viewer', owner.accountId);
  const ticket = await opened(owner.s);
  const answer = await post(operator, `/tickets/${ticket.id}/responses`, { content: 'Hello' });
  t.equal((await get(viewer.s, `/tickets/${ticket.id}`)).status, 200, 'the viewer reads it');
  for (const [path, body] of [
    ['/tickets', { title: 't', content: 'c' }],
    [`/tickets/${ticket.id}/responses`, { content: 'c' }],
    [`/tickets/${ticket.id}/close`, {}],
    [`/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'like' }],
  ] as const) {
    const reply = await post(viewer.s, path, body);
    t.equal(reply.status, 403, `viewer: ${path}`);
    t.match(reply.body, { code: 'rest_forbidden' });
  }
  t.equal((await post(operator, '/tickets', { title: 't', content: 'c' })).status, 403, 'an operator does not open tickets');
  t.equal((await post(operator, `/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'like' })).status, 403);
  t.equal(((await get(owner.s, `/tickets/${ticket.id}`)).body.ticket as Json).response_count, 1, 'nothing was added');
});

t.test("another account's ticket is not found, for reading and for every change", async (t) => {
  const mine = await customer();
  const theirs = await customer();
  const ticket = await opened(theirs.s);
  const answer = await post(operator, `/tickets/${ticket.id}/responses`, { content: 'Hello' });
  const read = await get(mine.s, `/tickets/${ticket.id}`);
  t.equal(read.status, 404);
  t.match(read.body, { code: 'rest_support_ticket_invalid_id' });
  for (const [path, body] of [
    [`/tickets/${ticket.id}/responses`, { content: 'c' }],
    [`/tickets/${ticket.id}/close`, {}],
    [`/tickets/${ticket.id}/re-open`, {}],
    [`/tickets/${ticket.id}/agent-feedback`, { response_id: answer.body.id, approval_status: 'like' }],
  ] as const) {
    const reply = await post(mine.s, path, body);
    t.equal(reply.status, 404, path);
    t.match(reply.body, { code: 'rest_support_ticket_invalid_id' });
  }
  t.equal((await get(mine.s, '/tickets')).headers.get('x-wp-total'), '0', "the other account's ticket is not listed");
  const after = await get(theirs.s, `/tickets/${ticket.id}`);
  t.match(after.body, { ticket: { status: 'active', response_count: 1 }, responses: [{ approval_status: null }] }, 'nothing changed');
  t.equal((await get(operator, '/tickets/99999999')).status, 404, 'a missing ticket is not found for an operator');
});

t.test('an operator assigns a ticket to an operator and unassigns it: shown on the ticket, listed by assignee, audited', async (t) => {
  const { s, accountId } = await customer();
  const ticket = await opened(s);
  const operatorId = (await h.rt.store.users.findByEmail(operatorEmail))!.id;
  const colleagueEmail = await operatorOn(h);
  const colleague = (await h.rt.store.users.findByEmail(colleagueEmail))!;
  const assigned = await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: colleague.id });
  t.equal(assigned.status, 200, assigned.text);
  t.match(assigned.body, { id: ticket.id, assigned_to: { id: colleague.id, name: colleague.name } });
  t.notOk('email' in (assigned.body.assigned_to as Json), "the operator's email is not shown");
  t.match((await get(s, `/tickets/${ticket.id}`)).body, { ticket: { assigned_to: { id: colleague.id } } }, 'the customer sees who has it');
  const ids = async (assigned: string) => ((await get(operator, `/tickets?per_page=100&assigned=${assigned}`)).body as Json[]).map((x) => x.id);
  t.ok((await ids(String(colleague.id))).includes(ticket.id), "listed under the assignee's id");
  t.notOk((await ids('none')).includes(ticket.id), 'not among the unassigned');
  t.notOk((await ids('me')).includes(ticket.id), "not the caller's");
  await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: operatorId });
  t.ok((await ids('me')).includes(ticket.id), "the caller's once assigned to it");
  const unassigned = await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: 0 });
  t.match(unassigned.body, { assigned_to: null });
  t.ok((await ids('none')).includes(ticket.id), 'unassigned again');
  const audit = await h.rt.store.auditLog.list({ action: 'ticket.assign', targetKind: 'ticket', targetId: String(ticket.id) }, { page: 1, perPage: 10 });
  t.same(
    audit.rows.map((e) => [e.operatorId, e.before, e.after]),
    [
      [operatorId, { assigned_to: operatorId, tenant_id: accountId }, { assigned_to: null, tenant_id: accountId }],
      [operatorId, { assigned_to: colleague.id, tenant_id: accountId }, { assigned_to: operatorId, tenant_id: accountId }],
      [operatorId, { assigned_to: null, tenant_id: accountId }, { assigned_to: colleague.id, tenant_id: accountId }],
    ],
  );
});

t.test('assigning is refused: not an operator 400 naming agent_id, a customer 403, another account 404, anonymous 401', async (t) => {
  const owner = await customer();
  const stranger = await customer();
  const ticket = await opened(owner.s);
  const ownerId = (await h.rt.store.users.findByEmail(owner.email))!.id;
  const notOperator = await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: ownerId });
  t.equal(notOperator.status, 400);
  t.match(notOperator.body, { code: 'rest_invalid_param', data: { status: 400, params: { agent_id: /operator/ } } });
  t.match(await post(operator, `/tickets/${ticket.id}/assign`, {}), { status: 400, body: { code: 'rest_missing_callback_param', data: { params: ['agent_id'] } } });
  t.match(await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: 'me' }), { status: 400, body: { data: { params: { agent_id: String } } } });
  t.match(await post(operator, `/tickets/${ticket.id}/assign`, { agent_id: 99_999_999 }), { status: 400, body: { data: { params: { agent_id: String } } } });
  const own = await post(owner.s, `/tickets/${ticket.id}/assign`, { agent_id: 0 });
  t.equal(own.status, 403, "the ticket's own customer");
  t.match(own.body, { code: 'rest_forbidden' });
  t.match(await post(stranger.s, `/tickets/${ticket.id}/assign`, { agent_id: 0 }), { status: 404, body: { code: 'rest_support_ticket_invalid_id' } });
  t.equal((await post(null, `/tickets/${ticket.id}/assign`, { agent_id: 0 })).status, 401);
  t.equal((await post(operator, '/tickets/99999999/assign', { agent_id: 0 })).status, 404);
  t.match((await get(owner.s, `/tickets/${ticket.id}`)).body, { ticket: { assigned_to: null } }, 'nothing changed');
  t.equal(
    (await h.rt.store.auditLog.list({ action: 'ticket.assign', targetKind: 'ticket', targetId: String(ticket.id) }, { page: 1, perPage: 10 })).total,
    0,
    'nothing audited',
  );
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** One file uploaded as a browser sends it (FormData through fetch). */
async function upload(s: SignedIn | null, content: Buffer | string, filename = 'shot.png', field = 'file') {
  const form = new FormData();
  form.append(field, new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: 'application/octet-stream' }), filename);
  const res = await fetch(`${h.url}${NS}/ticket_file_upload`, { method: 'POST', headers: s ? withSession(s).headers : {}, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Json, text };
}

t.test("files are uploaded, sent with a ticket and a response, and downloaded by the ticket's people only", async (t) => {
  const owner = await customer();
  const colleague = await customer('viewer', owner.accountId);
  const stranger = await customer();
  const shot = await upload(owner.s, PNG, 'screen shot 1.png');
  t.equal(shot.status, 201, shot.text);
  t.match(shot.body, { id: Number, file_name: 'screen shot 1.png', content_type: 'image/png', size: PNG.length });
  const log = await upload(owner.s, 'line one\nline two\n', 'bounce.log');
  t.match(log.body, { content_type: 'text/plain', file_name: 'bounce.log' });
  const ticket = await opened(owner.s, { title: 'See the picture', content: 'Attached', attachments: [shot.body.id] });
  const answer = await post(operator, `/tickets/${ticket.id}/responses`, { content: 'Seen' });
  const more = await post(owner.s, `/tickets/${ticket.id}/responses`, { content: 'And the log', attachments: [log.body.id] });
  t.match(more.body, { attachments: [{ id: log.body.id, url: String }] });
  const read = await get(owner.s, `/tickets/${ticket.id}`);
  const [own] = (read.body.ticket as Json).attachments as Json[];
  t.match(own, { id: shot.body.id, url: new RegExp(`/api/tern-support/v1/tickets/${String(ticket.id)}/attachments/${String(shot.body.id)}$`) });
  t.same(
    ((read.body.responses as Json[])[1]!.attachments as Json[]).map((a) => a.id),
    [log.body.id],
  );
  t.same((read.body.responses as Json[])[0]!.attachments as Json[], [], "the operator's response has none");
  const path = new URL(String(own!.url)).pathname;
  for (const who of [owner.s, colleague.s, operator]) {
    const res = await fetch(h.url + path, { headers: withSession(who).headers });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'image/png');
    t.match(res.headers.get('content-disposition'), /^attachment; filename="screen shot 1.png"/);
    t.ok(Buffer.from(await res.arrayBuffer()).equals(PNG), 'the same bytes');
  }
  t.equal((await h.request('GET', path, withSession(stranger.s))).status, 404, "another account's user");
  t.equal((await h.request('GET', path)).status, 401, 'anonymous');
  const wrong = await h.request('GET', `${NS}/tickets/${ticket.id}/attachments/${String(log.body.id + 1000)}`, withSession(owner.s));
  t.match(wrong.body, { code: 'rest_support_attachment_invalid_id' });
  t.ok(answer.status === 201);
});

t.test('an upload is refused by its content type, its size, its field, its caller; a file is sent once and by its uploader only', async (t) => {
  const owner = await customer();
  const admin = await customer('admin', owner.accountId);
  const viewer = await customer('viewer', owner.accountId);
  const exe = await upload(owner.s, Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0)]), 'shot.png');
  t.equal(exe.status, 400, 'bytes of no allowed type, whatever the name');
  t.match(exe.body, { code: 'rest_invalid_param', data: { params: { file: /must be one of/ } } });
  const big = await upload(owner.s, Buffer.alloc(2 * 1024 * 1024 + 1, 0x61), 'big.txt');
  t.equal(big.status, 400);
  t.match(big.body, { code: 'rest_upload_file_too_big' });
  t.match((await upload(owner.s, PNG, 'x.png', 'image')).body, { code: 'rest_upload_unexpected_field' });
  t.equal((await upload(viewer.s, PNG)).status, 403, 'a viewer uploads nothing');
  t.equal((await upload(null, PNG)).status, 401);
  const mine = await upload(owner.s, PNG);
  const taken = await post(admin.s, '/tickets', { title: 't', content: 'c', attachments: [mine.body.id] });
  t.match(taken.body, { code: 'rest_invalid_param', data: { params: { attachments: String } } }, "another user's upload is not sent with one's ticket");
  await opened(owner.s, { title: 't', content: 'c', attachments: [mine.body.id] });
  const again = await post(owner.s, '/tickets', { title: 't2', content: 'c', attachments: [mine.body.id] });
  t.equal(again.status, 400, 'a file is sent once');
  t.equal((await get(owner.s, '/tickets')).headers.get('x-wp-total'), '1');
});

t.test('an upload never sent is deleted a day on by the sweep; a sent one stays downloadable', async (t) => {
  const owner = await customer();
  const kept = await upload(owner.s, PNG, 'kept.png');
  const dropped = await upload(owner.s, 'never sent', 'draft.txt');
  const ticket = await opened(owner.s, { title: 'Keep this', content: 'c', attachments: [kept.body.id] });
  const sweep = (hoursLater: number) => sweepUnsentUploads({ config: h.rt.config, store: h.rt.store, now: () => Date.now() + hoursLater * 3_600_000 }, h.rt.log);
  t.equal(await sweep(23), 0, 'a day has not passed');
  t.ok((await sweep(25)) >= 1, 'a day on, the unsent upload is deleted');
  const late = await post(owner.s, '/tickets', { title: 'Too late', content: 'c', attachments: [dropped.body.id] });
  t.equal(late.status, 400);
  t.match(late.body, { code: 'rest_invalid_param', data: { params: { attachments: String } } }, 'the deleted upload cannot be sent');
  const res = await fetch(`${h.url}${NS}/tickets/${ticket.id}/attachments/${kept.body.id}`, { headers: withSession(owner.s).headers });
  t.equal(res.status, 200, 'the sent file is kept');
});

t.test('the portal config says what the ticket form asks, to any signed-in user', async (t) => {
  const { s } = await customer('viewer');
  const config = await get(s, '/portal-config');
  t.equal(config.status, 200);
  t.match(config.body, {
    products: [{ id: 'sending', title: String }],
    priorities: [{ id: 'normal' }, { id: 'medium' }, { id: 'critical' }],
    default_priority: 'normal',
    attachments: {
      max_bytes: 2_097_152,
      types: ['image/png', 'image/jpeg', 'image/webp', 'application/pdf', 'text/plain'],
      per_message: 5,
      upload_url: /\/ticket_file_upload$/,
    },
  });
  t.same(
    (config.body.form as Json[]).map((f) => [f.name, f.required]),
    [
      ['title', true],
      ['content', true],
      ['product_id', false],
      ['client_priority', false],
      ['attachments', false],
    ],
  );
  t.equal((await get(operator, '/portal-config')).status, 200, 'operators read it too');
  t.equal((await get(null, '/portal-config')).status, 401);
});

t.test("the account's widgets show its plan, credits, sending, suppressions, queue and open tickets; an operator names the ticket", async (t) => {
  const account = await h.account({ credits: 42 });
  const owner = await customer('owner', account.id);
  const other = await customer();
  const ticket = await opened(owner.s);
  await h.request('POST', '/api/tern/v2/suppressions', { ...withSession(owner.s), body: { email: 'gone@example.org' } });
  const mine = await get(owner.s, '/info/widgets');
  t.equal(mine.status, 200, mine.text);
  t.match(mine.body, {
    tenant: { id: account.id, kind: 'account', status: 'active', plan: String },
    credits: { balance: 42 },
    sending: { window_days: Number, volume: 0, bounce_rate: 0, complaint_rate: 0 },
    suppressions: { total: 1 },
    queue: { in_flight: 0 },
    tickets: { open: 1 },
  });
  const beside = await get(operator, `/info/widgets?ticket_id=${String(ticket.id)}`);
  t.same(beside.body, mine.body, "an operator sees the ticket's account");
  const unnamed = await get(operator, '/info/widgets');
  t.equal(unnamed.status, 400);
  t.match(unnamed.body, { code: 'rest_invalid_param', data: { params: { ticket_id: String } } });
  t.match((await get(owner.s, '/info/widgets?ticket_id=abc')).body, { code: 'rest_invalid_param', data: { params: { ticket_id: String } } });
  t.equal((await get(other.s, `/info/widgets?ticket_id=${String(ticket.id)}`)).status, 404, "another account's ticket");
  t.equal((await get(null, '/info/widgets')).status, 401);
});

t.test('operators add docs (audited) that the portal suggests by title; account users cannot add them', async (t) => {
  const { s } = await customer();
  const title = `Publishing SPF ${Date.now()}`;
  const made = await post(operator, '/docs', { title, link: 'https://docs.example.com/spf' });
  t.equal(made.status, 201, made.text);
  t.equal((await post(s, '/docs', { title: 'Mine', link: 'https://docs.example.com/mine' })).status, 403, 'an account user adds no doc');
  t.equal((await post(null, '/docs', { title: 'Mine', link: 'https://docs.example.com/mine' })).status, 401);
  const bad = await post(operator, '/docs', { title: 'x', link: 'javascript:alert(1)' });
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param', data: { params: { link: String } } });
  const found = await get(s, `/search-doc?search=${encodeURIComponent(title.slice(0, 20).toLowerCase())}`);
  t.same(found.body, [{ title, link: 'https://docs.example.com/spf' }]);
  t.same((await get(s, '/search-doc?search=nothing%20like%20it')).body, []);
  t.match((await get(s, '/search-doc')).body, { code: 'rest_missing_callback_param', data: { params: ['search'] } });
  t.equal((await get(null, '/search-doc?search=spf')).status, 401);
  const audit = await h.request('GET', `/api/tern/v2/admin/audit-log?target_kind=support_doc&target_id=${String(made.body.id)}`, withSession(operator));
  t.match(audit.body, [{ action: 'support_doc.create', after: { title, link: 'https://docs.example.com/spf' } }]);
});

t.test('where tickets go is read and set by operators only, audited; a bad URL is refused', async (t) => {
  const { s } = await customer();
  const before = await get(operator, '/api_settings');
  t.match(before.body, { storage: 'tern', forwarding_active: false });
  const set = await post(operator, '/api_settings', { forward_url: 'https://helpdesk.example.com/tern' });
  t.equal(set.status, 200, set.text);
  t.match(set.body, { storage: 'tern', forward_url: 'https://helpdesk.example.com/tern', forwarding_active: true, updated_at: String, forward_secret: /^whsec_/ });
  const { forward_secret: secret, ...shown } = set.body as Json;
  t.same((await get(operator, '/api_settings')).body, shown, 'read back without the secret');
  t.notOk(
    JSON.stringify((await h.request('GET', '/api/tern/v2/admin/audit-log?action=support.settings', withSession(operator))).body).includes(String(secret)),
    'the secret is not audited',
  );
  const bad = await post(operator, '/api_settings', { forward_url: 'ftp://helpdesk.example.com' });
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param', data: { params: { forward_url: String } } });
  t.match((await post(operator, '/api_settings', {})).body, { code: 'rest_missing_callback_param' });
  t.equal((await get(s, '/api_settings')).status, 403, 'an account owner');
  t.equal((await post(s, '/api_settings', { forward_url: '' })).status, 403);
  t.equal((await get(null, '/api_settings')).status, 401);
  const cleared = await post(operator, '/api_settings', { forward_url: '' });
  t.match(cleared.body, { forward_url: null, forwarding_active: false, forward_secret: null });
  const audit = await h.request('GET', '/api/tern/v2/admin/audit-log?action=support.settings', withSession(operator));
  t.match(audit.body, [
    { target: { kind: 'platform', id: 'support.api_settings' }, before: { forward_url: 'https://helpdesk.example.com/tern' }, after: { forward_url: null } },
    { before: { forward_url: before.body.forward_url }, after: { forward_url: 'https://helpdesk.example.com/tern' } },
  ]);
});
