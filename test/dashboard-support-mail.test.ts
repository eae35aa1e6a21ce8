// An operator's response to a ticket is mailed to the ticket's opener by Tern itself (the MTA delivering to the
// loopback sink): the ticket's title in the subject, the response's text, HTML escaped; a customer's response
// mails nobody. An operator's edit of the support response email words the next one; turned off, none is sent.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { logIn, operatorOn, PASSWORD, withSession } from './helpers/dashboard-session.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { editEmail, resetEmail } from './helpers/email-templates.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;
const NS = '/api/tern-support/v1';

let openers = 0;

/** An owner of the world's account whose mail reaches the sink. */
async function opener(): Promise<{ email: string; s: Awaited<ReturnType<typeof logIn>> }> {
  const id = createIdentity(h.rt);
  const log = createLogger('test', 'silent');
  const email = `opener-${++openers}-${process.pid}@dest.test`;
  const made = await id.users.create(w.accountId, { email, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  await id.users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log);
  return { email, s: await logIn(h, email) };
}

t.test("an operator's response reaches the ticket's opener by mail; the customer's own does not", async (t) => {
  const { email, s } = await opener();
  const operator = await logIn(h, await operatorOn(h));
  const ticket = await h.request('POST', `${NS}/tickets`, { ...withSession(s), body: { title: 'Bounces <b>again</b>', content: 'Why?' } });
  t.equal(ticket.status, 201, ticket.text);
  await h.request('POST', `${NS}/tickets/${String(ticket.body.id)}/responses`, { ...withSession(s), body: { content: 'More details' } });
  const answer = await h.request('POST', `${NS}/tickets/${String(ticket.body.id)}/responses`, {
    ...withSession(operator),
    body: { content: 'Their server says <550>: the address is gone.' },
  });
  t.equal(answer.status, 201, answer.text);
  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.subject, `Re: [Ticket #${String(ticket.body.id)}] Bounces <b>again</b>`);
  t.match(parsed.text, /answered your ticket “Bounces <b>again<\/b>”:\n\n> Their server says <550>: the address is gone\./);
  t.match(String(parsed.html), /Bounces &lt;b&gt;again&lt;\/b&gt;/, 'the title is escaped in HTML');
  t.match(String(parsed.html), /Their server says &lt;550&gt;/);
  t.equal(countTo(w.sink, email), 1, "the customer's own response mailed nobody");
});

t.test('an edited support response is the mail the opener receives, values escaped; turned off, nothing is sent', async (t) => {
  const { email, s } = await opener();
  const operator = await logIn(h, await operatorOn(h));
  t.teardown(() => resetEmail(h, operator, 'support_response'));
  await editEmail(h, operator, 'support_response', {
    subject: 'New answer on #{{ticket.id}}',
    body: '<p>{{response.author}} wrote on <i>{{ticket.title}}</i>:</p>\n<div>{{response.content}}</div>',
  });
  const ticket = await h.request('POST', `${NS}/tickets`, { ...withSession(s), body: { title: '<script>alert(1)</script>', content: 'Why?' } });
  const id = String(ticket.body.id);
  await h.request('POST', `${NS}/tickets/${id}/responses`, { ...withSession(operator), body: { content: 'Line one\n<script>two</script>' } });
  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.subject, `New answer on #${id}`);
  const html = String(parsed.html);
  t.match(html, '<i>&lt;script&gt;alert(1)&lt;/script&gt;</i>');
  t.match(html, '<div>Line one<br>&lt;script&gt;two&lt;/script&gt;</div>', 'the lines kept, escaped');
  t.notMatch(html, '<script>', 'no markup from the values');
  t.match(parsed.text, /wrote on <script>alert\(1\)<\/script>:\n\nLine one\n<script>two<\/script>/, 'the text part, generated');

  await editEmail(h, operator, 'support_response', { subject: 'x', body: '{{response.content}}', status: 'disabled' });
  const quiet = await h.request('POST', `${NS}/tickets/${id}/responses`, { ...withSession(operator), body: { content: 'Still there?' } });
  t.equal(quiet.status, 201, 'the response stands');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal(countTo(w.sink, email), 1, 'no second mail');
});
