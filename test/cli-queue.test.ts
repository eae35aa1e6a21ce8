// `ternmail queue …` as real processes against a running Tern (api and mta from dist/, real Redis, an MX sink on
// loopback that defers, then accepts): what each command shows and changes in the queue, held recipients
// surviving a restart of the MTA and outliving the max queue age, purges refunding credits, and the audit log.
import t from 'tap';
import { runCli, type CliResult } from './helpers/cli.js';
import { http } from './harness/ternmail.js';
import { eventually } from './helpers/cli.js';
import { startDeployment, type Deployment, type Sender } from './helpers/processes.js';
import type { Store } from '../shared/store/index.js';
import { openTestStore } from './harness/test-engine.js';

/** Short enough that a held recipient outlives it in the test; no retry of its own before then. */
const MAX_QUEUE_AGE_S = 20;
const DEFERRAL = '4.3.0 mailbox busy, try later';

interface ListedRecipient {
  recipient_id: number;
  message_id: string;
  team_id: number;
  recipient: string;
  state: string;
  attempts: number;
  last_reply: string | null;
  held_at: string | null;
}

const jsonLines = <T>(r: CliResult): T[] =>
  r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** The message sent to each address (one each in this file). */
const messageTo = new Map<string, string>();

async function send(d: Deployment, sender: Sender, to: string): Promise<string> {
  const res = await http(d.apiUrl, 'POST', '/v2/emails', {
    key: sender.sendingKey,
    body: { from: { email: `app@${sender.domain}` }, to: [{ email: to }], subject: `To ${to}`, text: 'hi' },
  });
  if (res.status !== 200) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
  const id = (res.body as { message_id: string }).message_id;
  messageTo.set(to, id);
  return id;
}

/** The one recipient of the message sent to `email` as the store has it, with its message's status. */
async function recipientTo(store: Store, email: string): Promise<{ email: string; state: string; reason: string; status: string | undefined }> {
  const id = messageTo.get(email)!;
  const [r] = await store.messages.recipientsOf(id);
  return { email: r!.email, state: r!.state, reason: r!.reason, status: (await store.messages.get(id))?.status };
}

const queue = (d: Deployment, ...args: string[]) => runCli(['queue', ...args], d.env);

async function listed(d: Deployment, ...selectors: string[]): Promise<ListedRecipient[]> {
  const r = await queue(d, 'list', '--json', ...selectors);
  if (r.code !== 0) throw new Error(`queue list failed: ${r.stderr}`);
  return jsonLines<ListedRecipient>(r);
}

/** Waits until every recipient listed by `selectors` has been tried once and deferred. */
const deferredOnce = (d: Deployment, count: number, ...selectors: string[]) =>
  eventually(
    async () => {
      const rows = await listed(d, '--state', 'deferred', ...selectors);
      return rows.length === count && rows.every((r) => r.attempts >= 1) ? rows : undefined;
    },
    20_000,
    `${count} deferred recipients`,
  );

const balanceOf = async (d: Deployment, sender: Sender): Promise<number> => {
  const info = await http(d.apiUrl, 'GET', '/v2/info', { key: sender.adminKey });
  return (info.body as { account: { credit_balance: number } }).account.credit_balance;
};

t.test('the queue commands list, sum up, hold, flush, release and purge real queued mail', async (t) => {
  const d = await startDeployment({ env: { TERNMAIL_RETRY_DELAYS_S: '3600', TERNMAIL_MAX_QUEUE_AGE_S: String(MAX_QUEUE_AGE_S) } });
  t.teardown(() => d.close());
  await d.startApi();
  // The test reads what the commands changed through the store's interface, beside the running processes.
  const store = await openTestStore(d.dataDir);
  t.teardown(() => store.close());
  const sender = await d.sender('queue.example.com', { credits: 100 });
  // Every destination's mail goes to the sink (an A record and no MX: the host itself).
  for (const domain of ['slow.test', 'other.test', 'gone.test', 'hard.test']) d.dns.set(domain, [{ type: 'A', data: '127.0.0.1' }]);
  await d.startMta();
  d.sink.rcptReply = () => ({ code: 451, message: DEFERRAL });

  for (const to of ['a@slow.test', 'b@slow.test', 'c@other.test']) await send(d, sender, to);
  const deferred = await deferredOnce(d, 3);
  t.same(deferred.map((r) => r.recipient).sort(), ['a@slow.test', 'b@slow.test', 'c@other.test']);
  t.ok(
    deferred.every((r) => r.team_id === sender.accountId && r.last_reply?.includes('mailbox busy')),
    'each line names its team and the last reply',
  );

  const text = await queue(d, 'list', '--domain', 'slow.test');
  t.equal(text.code, 0, text.stderr);
  t.equal(text.stdout.trim().split('\n').length, 2, 'one line per recipient of that destination');
  t.match(text.stdout, /a@slow\.test {2}deferred {2}attempts=1/);

  const summary = await queue(d, 'summary', '--json');
  t.equal(summary.code, 0, summary.stderr);
  t.match(jsonLines(summary), [
    { domain: 'slow.test', total: 2, deferred: 2, held: 0, last_error: /mailbox busy/ },
    { domain: 'other.test', total: 1, deferred: 1, held: 0 },
  ]);
  t.match((await queue(d, 'summary')).stdout, /^domain +total +queued +sending +deferred +held +oldest +last error\nslow\.test +2 +0 +0 +2 +0 +\d+s +451/);

  await t.test('a change with no selector is refused, and so is a bad one', async (t) => {
    const bare = await queue(d, 'flush');
    t.equal(bare.code, 2);
    t.match(bare.stderr, /flush needs a selector .* or all/);
    const age = await queue(d, 'hold', '--older-than', '1 hour');
    t.equal(age.code, 2);
    t.match(age.stderr, /--older-than: older_than must be a whole number of s, m, h or d/);
    const team = await queue(d, 'hold', '--team', '999999');
    t.equal(team.code, 1);
    t.match(team.stderr, /Team not found/);
    t.equal((await listed(d, '--state', 'deferred')).length, 3, 'nothing changed');
  });

  const held = await queue(d, 'hold', '--domain', 'slow.test');
  t.equal(held.code, 0, held.stderr);
  t.match(held.stdout, /^held 2 recipients\n/);
  t.same((await listed(d, '--state', 'held')).map((r) => r.recipient).sort(), ['a@slow.test', 'b@slow.test']);

  d.sink.rcptReply = () => null;
  const flushed = await queue(d, 'flush', '--all', '--json');
  t.equal(flushed.code, 0, flushed.stderr);
  t.match(JSON.parse(flushed.stdout), { flushed: 1 }, 'only the waiting recipient is made due; held ones are not');
  await d.sink.waitFor(1);
  t.same(
    d.sink.messages.flatMap((m) => m.to),
    ['c@other.test'],
  );
  await eventually(async () => ((await listed(d, '--domain', 'other.test')).length === 0 ? true : undefined), 20_000, 'the delivery recorded');

  await t.test('held recipients survive a restart of the MTA and outlive the max queue age', async (t) => {
    await d.killMta();
    await d.startMta();
    await new Promise((r) => setTimeout(r, (MAX_QUEUE_AGE_S + 3) * 1000));
    t.same((await listed(d, '--state', 'held')).map((r) => r.recipient).sort(), ['a@slow.test', 'b@slow.test'], 'still held, never attempted');
    t.same(
      d.sink.messages.flatMap((m) => m.to),
      ['c@other.test'],
    );

    const released = await queue(d, 'release', '--domain', 'slow.test', '--reason', 'the destination is back');
    t.equal(released.code, 0, released.stderr);
    t.match(released.stdout, /^released 2 recipients\n/);
    // The time held does not count toward the max queue age: released, they are delivered, not expired.
    await d.sink.waitFor(3);
    t.same(d.sink.messages.flatMap((m) => m.to).sort(), ['a@slow.test', 'b@slow.test', 'c@other.test']);
    t.same(await listed(d), [], 'the queue is empty');
  });

  await t.test('a purge ends recipients as failed, refunds their credits and reports them only with --notify', async (t) => {
    d.sink.rcptReply = () => ({ code: 451, message: DEFERRAL });
    await send(d, sender, 'quiet@gone.test');
    await send(d, sender, 'told@gone.test');
    await deferredOnce(d, 2, '--domain', 'gone.test');
    const before = await balanceOf(d, sender);

    const bad = await queue(d, 'purge', '--domain', 'gone.test');
    t.equal(bad.code, 2, 'a purge needs a reason');
    const quiet = (await listed(d, '--domain', 'gone.test')).find((r) => r.recipient === 'quiet@gone.test')!;
    const told = (await listed(d, '--domain', 'gone.test')).find((r) => r.recipient === 'told@gone.test')!;
    const first = await queue(d, 'purge', '--message', quiet.message_id, '--reason', 'the customer asked');
    t.equal(first.code, 0, first.stderr);
    t.match(first.stdout, /^purged 1 recipient \(1 message finished, 0 soft bounces reported\)\n/);
    const second = await queue(d, 'purge', '--message', told.message_id, '--reason', 'the customer asked', '--notify', '--json');
    t.match(JSON.parse(second.stdout), { purged: 1, finished: 1, notified: 1 });

    t.equal(await balanceOf(d, sender), before + 2, 'each purged recipient’s credit is refunded');
    t.same(await listed(d, '--domain', 'gone.test'), [], 'nothing of them is left in the queue');
    t.same(await Promise.all(['quiet@gone.test', 'told@gone.test'].map((email) => recipientTo(store, email))), [
      { email: 'quiet@gone.test', state: 'failed', reason: 'purged by an operator: the customer asked', status: 'failed' },
      { email: 'told@gone.test', state: 'failed', reason: 'purged by an operator: the customer asked', status: 'failed' },
    ]);
    const events = await Promise.all([quiet.message_id, told.message_id].map((id) => store.feedback.eventsOf(id)));
    t.same(
      events.flat().map((e) => ({ email: e.email, type: e.type, isHardBounce: e.isHardBounce })),
      [{ email: 'told@gone.test', type: 'bounced', isHardBounce: false }],
      'a soft bounce event for the notified purge only',
    );
    t.same(await store.suppressions.suppressedAmong(sender.accountId, ['quiet@gone.test', 'told@gone.test']), new Set(), 'a purge suppresses nobody');
  });

  await t.test('a requeue sends a failed recipient again, paid again, and refuses a suppressed address', async (t) => {
    d.sink.rcptReply = (address) => (address === 'nobody@hard.test' ? { code: 550, message: '5.1.1 no such user' } : null);
    const quiet = messageTo.get('quiet@gone.test')!;
    const before = await balanceOf(d, sender);
    const requeued = await queue(d, 'requeue', '--message', quiet);
    t.equal(requeued.code, 0, requeued.stderr);
    t.match(requeued.stdout, /^requeued 1 recipient\n/);
    await eventually(() => (d.sink.messages.some((m) => m.to.includes('quiet@gone.test')) ? true : undefined), 20_000, 'the requeued delivery');
    await eventually(async () => ((await store.messages.get(quiet))?.status === 'sent' ? true : undefined), 20_000, 'sent');
    t.equal(await balanceOf(d, sender), before - 1, 'the new attempt is paid for');

    const bounced = await send(d, sender, 'nobody@hard.test');
    await eventually(async () => ((await recipientTo(store, 'nobody@hard.test')).state === 'bounced' ? true : undefined), 20_000, 'a hard bounce');
    const refused = await queue(d, 'requeue', '--message', bounced);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /not requeued: on the suppression list: nobody@hard\.test/);
    t.equal((await recipientTo(store, 'nobody@hard.test')).state, 'bounced', 'left as it was');
    const bare = await queue(d, 'requeue', '--state', 'deferred');
    t.equal(bare.code, 2, 'only bounced or failed recipients are requeued');
  });

  await t.test('every change is in the audit log, as the CLI’s', async (t) => {
    const rows = (await store.auditLog.list({ targetKind: 'queue' }, { page: 1, perPage: 100 })).rows.reverse();
    const [quiet, told, nobody] = ['quiet@gone.test', 'told@gone.test', 'nobody@hard.test'].map((email) => messageTo.get(email)!);
    t.same(
      rows.map((r) => [r.action, r.target.id, (r.after as { changed?: number } | null)?.changed]),
      [
        ['queue.hold', 'domain=slow.test', 2],
        ['queue.flush', 'all', 1],
        ['queue.release', 'domain=slow.test', 2],
        ['queue.purge', `message=${quiet}`, 1],
        ['queue.purge', `message=${told}`, 1],
        ['queue.requeue', `message=${quiet}`, 1],
        ['queue.requeue', `message=${nobody}`, 0],
      ],
    );
    t.ok(
      rows.every((r) => r.operatorId === null && /^ternmail CLI \(.+\)$/.test(r.operatorEmail)),
      'made by the host’s CLI user',
    );
  });
});
