// The figures' one rule (domain/figures.ts): which status a recipient counts in, and which counts a change moves.
import t from 'tap';
import { figureBumps, figureStatusOf, figuresOfNew, FIGURE_TABLE } from '../shared/domain/figures.js';
import { IN_QUEUE, RECIPIENT_STATES } from '../shared/domain/queue-state.js';

t.test('a recipient counts as complained once it complained, pending while in the queue, else as its state', async (t) => {
  for (const state of RECIPIENT_STATES) t.equal(figureStatusOf(state, true), 'complained', `${state}, complained`);
  for (const state of IN_QUEUE) t.equal(figureStatusOf(state, false), 'pending', state);
  t.same(
    ['sent', 'bounced', 'failed', 'suppressed', 'complained'].map((s) => figureStatusOf(s as never, false)),
    ['sent', 'bounced', 'failed', 'suppressed', 'complained'],
  );
  t.equal(FIGURE_TABLE.length, RECIPIENT_STATES.length * 2, 'the table engines read lists every state with and without a complaint');
  for (const f of FIGURE_TABLE) t.equal(f.status, figureStatusOf(f.state, f.complained));
});

t.test('moves within the queue (claim, deferral, hold, release) move no figure, so the engine writes no counter for them', async (t) => {
  const moves = [
    ['queued', 'sending'],
    ['sending', 'deferred'],
    ['deferred', 'held'],
    ['held', 'queued'],
  ] as const;
  for (const [from, to] of moves) {
    t.same(figureBumps([{ messageId: 'm', from: { state: from, complained: false }, to: { state: to, complained: false } }]), [], `${from} to ${to}`);
  }
});

t.test("a change's bumps leave the old status and enter the new one, summed per message and status", async (t) => {
  const sent = (messageId: string) => ({ messageId, from: { state: 'sending' as const, complained: false }, to: { state: 'sent' as const, complained: false } });
  t.same(figureBumps([sent('m'), sent('m'), sent('n')]), [
    { messageId: 'm', status: 'pending', by: -2 },
    { messageId: 'm', status: 'sent', by: 2 },
    { messageId: 'n', status: 'pending', by: -1 },
    { messageId: 'n', status: 'sent', by: 1 },
  ]);
  t.same(
    figureBumps([{ messageId: 'm', from: { state: 'bounced', complained: true }, to: { state: 'queued', complained: true } }]),
    [],
    'a complained recipient sent again still counts as complained',
  );
  t.same(figuresOfNew('m', ['queued', 'queued', 'suppressed', 'failed']), [
    { messageId: 'm', status: 'pending', by: 2 },
    { messageId: 'm', status: 'suppressed', by: 1 },
    { messageId: 'm', status: 'failed', by: 1 },
  ]);
});
