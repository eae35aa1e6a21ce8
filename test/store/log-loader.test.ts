// The benchmarks' log loader (store/log-loader.ts), on both engines: the messages it writes read back through the
// store's repositories as the product records them (the log's list and search, the totals, the figures, the
// queue depth), and its explainer gives a plan for each statement the log's list runs.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLoading, openStore, type Store } from '../../shared/store/index.js';
import type { ListExplainer, LoadedMessage, LoadedRecipient } from '../../shared/store/log-loader.js';
import type { MessageQuery } from '../../shared/store/message-log.js';
import type { MessageStatus, RecipientState } from '../../shared/domain/queue-state.js';
import { startPostgres, type TestPostgres } from '../harness/postgres.js';

/** A deployment's store as the loader is given it: its data dir, and its PostgreSQL URL (null on SQLite). */
interface Deployment {
  dataDir: string;
  databaseUrl: string | null;
}

const rcpt = (email: string, state: RecipientState, name = ''): LoadedRecipient => ({
  email,
  name,
  kind: 'to',
  domain: email.slice(email.indexOf('@') + 1),
  state,
  reason: state === 'deferred' ? '451 4.7.1 try again later' : '',
  nextAttemptAt: state === 'deferred' ? Date.parse('2026-11-04T00:00:00.000Z') : null,
  queuedAt: Date.parse('2026-11-01T00:00:00.000Z'),
  updatedAt: '2026-11-03T12:00:00.000Z',
});

function message(id: string, teamId: number, createdAt: string, subject: string, status: MessageStatus, recipients: LoadedRecipient[]): LoadedMessage {
  return {
    id,
    teamId,
    domainId: null,
    sendingKeyId: null,
    source: 'http',
    envelopeFrom: 'news@example.com',
    fromEmail: 'news@example.com',
    fromName: 'Example',
    subject,
    to: recipients.map((r) => ({ email: r.email, name: r.name })),
    replyTo: null,
    messageIdHeader: `<${id}@example.com>`,
    size: 1234,
    hasAttachments: false,
    headers: { 'X-Campaign': 'autumn' },
    status,
    error: status === 'failed' ? 'expired: too long in the queue' : null,
    createdAt,
    sentAt: status === 'sent' || status === 'bounced' ? createdAt.replace('T12', 'T13') : null,
    updatedAt: createdAt,
    recipients,
  };
}

/** Five messages over three days (1 to 3 November 2026), one with two recipients in two statuses, one still in the queue. */
const messagesOf = (teamId: number): LoadedMessage[] => [
  message('m1', teamId, '2026-11-01T12:00:00.000Z', 'invoice alpha', 'sent', [rcpt('anna@one.test', 'sent')]),
  message('m2', teamId, '2026-11-01T12:30:00.000Z', 'invoice beta', 'bounced', [rcpt('bob@two.test', 'bounced'), rcpt('carla@three.test', 'sent', 'Carla Rossi')]),
  message('m3', teamId, '2026-11-02T12:00:00.000Z', 'welcome alpha', 'pending', [rcpt('david@one.test', 'deferred')]),
  message('m4', teamId, '2026-11-02T12:00:00.000Z', 'receipt gamma', 'failed', [rcpt('emma@two.test', 'failed')]),
  message('m5', teamId, '2026-11-03T12:00:00.000Z', 'invoice gamma', 'sent', [rcpt('felix@one.test', 'sent')]),
];

const listed = (q: Partial<MessageQuery>): MessageQuery => ({ page: 1, perPage: 25, searchCountLimit: 10_000, ...q });
const NOVEMBER = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-30T23:59:59.999Z' };

/** Loads the messages (in two batches: the log's order runs on across them) into a new team's log; its id. */
async function load(store: Store, at: Deployment): Promise<{ teamId: number; messages: LoadedMessage[] }> {
  const team = await store.teams.createAccount({ name: 'Loaded', credits: 0, limitPerSecond: 10, planType: 'free', backendRegion: 'eu' });
  const messages = messagesOf(team.id);
  const loader = await logLoading.openLogLoader(at.dataDir, at.databaseUrl);
  await loader.writeBatch(messages.slice(0, 2));
  await loader.writeBatch(messages.slice(2));
  await loader.checkpoint();
  await loader.close();
  return { teamId: team.id, messages };
}

async function readsBackAsRecorded(t: Test, store: Store, teamId: number, messages: readonly LoadedMessage[]): Promise<void> {
  const ids = async (q: Partial<MessageQuery>) => {
    const page = await store.messages.list(teamId, listed(q));
    return { ids: page.rows.map((r) => r.id), total: page.total };
  };
  t.same(await ids({}), { ids: ['m5', 'm4', 'm3', 'm2', 'm1'], total: 5 }, 'the log lists them newest first, its total from the message counts');
  t.same(await ids({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T23:59:59.999Z' }), { ids: ['m4', 'm3', 'm2', 'm1'], total: 4 }, 'whole days are counted');
  t.same(await ids({ search: 'invoice' }), { ids: ['m5', 'm2', 'm1'], total: 3 }, 'a word of the subject finds them');
  t.same(await ids({ search: 'carla' }), { ids: ['m2'], total: 1 }, 'a word of a recipient (not the first) finds its message');
  t.same(await ids({ search: 'invoice', status: 'sent' }), { ids: ['m5', 'm2', 'm1'], total: 3 }, 'a status finds a message with any recipient in it');
  t.same(await ids({ search: 'invoice', status: 'bounced' }), { ids: ['m2'], total: 1 }, 'and not one with no recipient in it');
  t.same(await ids({ status: 'pending' }), { ids: ['m3'], total: 1 }, 'a deferred recipient is pending');

  const m2 = messages[1]!;
  const { recipients, ...detail } = m2;
  t.match(await store.messages.get('m2', teamId), { ...detail, headers: detail.headers }, 'a message reads back as it was loaded');
  t.same(
    (await store.messages.recipientsOf('m2')).map((r) => ({ ...r, id: 0 })),
    recipients.map((r) => ({ ...r, id: 0, messageId: 'm2', attempts: 0, lastReply: null })),
    'its recipients read back in order, with no attempt yet',
  );

  const byStatus = Object.fromEntries((await store.statistics.countByStatus(teamId, NOVEMBER)).filter((c) => c.n).map((c) => [c.status, c.n]));
  t.same(byStatus, { sent: 3, bounced: 1, pending: 1, failed: 1 }, 'the figures count each recipient in its status');
  const days = (await store.statistics.countOverTime(teamId, { ...NOVEMBER, grain: 'day' })).filter((c) => c.n).map((c) => `${c.start.slice(0, 10)} ${c.status} ${c.n}`);
  t.same(days.sort(), ['2026-11-01 bounced 1', '2026-11-01 sent 2', '2026-11-02 failed 1', '2026-11-02 pending 1', '2026-11-03 sent 1'], 'on the day of their message');
  t.equal(await store.statistics.queueDepth(teamId), 1, 'the deferred recipient is in the queue depth');
}

async function explains(t: Test, at: Deployment, teamId: number): Promise<void> {
  const explainer = await logLoading.openListExplainer(at.dataDir, at.databaseUrl);
  try {
    await explainEach(t, explainer, teamId);
  } finally {
    await explainer.close();
  }
}

async function explainEach(t: Test, explainer: ListExplainer, teamId: number): Promise<void> {
  for (const q of [{}, { search: 'invoice' }, { status: 'sent' as const }]) {
    const explained = await explainer.explainList(teamId, listed(q), 2);
    t.same(
      explained.map((e) => e.statement),
      ['page', 'count'],
      `the statements of ${JSON.stringify(q)}`,
    );
    for (const e of explained) {
      t.ok(e.plan.length > 0 && e.plan.every((line) => typeof line === 'string' && line.length > 0), `${e.statement} has a plan`);
      t.equal(e.runsMs.length, 2, `${e.statement} was timed each run`);
    }
  }
}

async function loaderChecks(t: Test, store: Store, at: Deployment): Promise<void> {
  const { teamId, messages } = await load(store, at);
  await readsBackAsRecorded(t, store, teamId, messages);
  await explains(t, at, teamId);
}

t.test('on SQLite, loaded messages read back as the intake records them, and their listing is explained', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-log-loader-'));
  const store = await openStore(dataDir);
  t.teardown(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  await loaderChecks(t, store, { dataDir, databaseUrl: null });
});

t.test('on PostgreSQL, loaded messages read back as the intake records them, and their listing is explained', async (t) => {
  const cluster: TestPostgres = await startPostgres();
  const databaseUrl = await cluster.createDatabase();
  const store = await openStore('', databaseUrl).catch(async (err: unknown) => {
    await cluster.stop();
    throw err;
  }); // migrates the database
  t.teardown(async () => {
    await store.close();
    await cluster.stop();
  });
  await loaderChecks(t, store, { dataDir: '', databaseUrl });
});
