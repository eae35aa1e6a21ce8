// What each outcome does to a recipient, decided in one place (domain/outcome.ts): a table of outcomes and
// the states they meet, with the effects the store then applies.
import t from 'tap';
import { effectsOf, outcomeOfAttempt, type FeedbackEffects, type OutcomeEffects, type RecipientOutcome } from '../shared/domain/outcome.js';
import { canMove, messageStatusOf, OPERATION_APPLIES_TO, type RecipientState } from '../shared/domain/queue-state.js';

const none: FeedbackEffects = { hardBounce: null, suppress: null, event: null };
const hardBounce: FeedbackEffects = { hardBounce: true, suppress: 'bounced', event: { type: 'bounced', hard: true } };
const softBounce: FeedbackEffects = { hardBounce: false, suppress: null, event: { type: 'bounced', hard: false } };
const complaint: FeedbackEffects = { hardBounce: null, suppress: 'complained', event: { type: 'complaint' } };

const ROWS: Array<[string, RecipientOutcome, RecipientState, boolean, OutcomeEffects | null]> = [
  ['a 250 delivers a recipient being sent, and counts it', { kind: 'delivered' }, 'sending', false, { moveTo: 'sent', count: 'sent', feedback: none }],
  ['a result for a recipient not being sent does nothing', { kind: 'delivered' }, 'deferred', false, null],
  ['a temporary failure defers, and counts nothing', { kind: 'deferred' }, 'sending', false, { moveTo: 'deferred', count: null, feedback: none }],
  [
    'a hard bounce in the SMTP reply bounces, counts, suppresses and is reported',
    { kind: 'bounced', hard: true, source: 'smtp' },
    'sending',
    false,
    { moveTo: 'bounced', count: 'bounced', feedback: hardBounce },
  ],
  [
    'a soft bounce in the SMTP reply bounces and is reported, never suppressed',
    { kind: 'bounced', hard: false, source: 'smtp' },
    'sending',
    false,
    { moveTo: 'bounced', count: 'bounced', feedback: softBounce },
  ],
  [
    'expiry is a soft bounce: failed, reported, not suppressed, not counted as a bounce',
    { kind: 'expired' },
    'deferred',
    false,
    { moveTo: 'failed', count: null, feedback: softBounce },
  ],
  [
    'a DSN after a 250 turns the delivered recipient bounced, counted once',
    { kind: 'bounced', hard: true, source: 'report' },
    'sent',
    false,
    { moveTo: 'bounced', count: 'bounced', feedback: hardBounce },
  ],
  [
    'a repeated DSN moves and counts nothing, but keeps the mark and the suppression',
    { kind: 'bounced', hard: true, source: 'report' },
    'bounced',
    false,
    { moveTo: null, count: null, feedback: hardBounce },
  ],
  ['a DSN about a recipient still in flight is ignored', { kind: 'bounced', hard: true, source: 'report' }, 'deferred', false, null],
  [
    'a complaint about a delivered recipient moves it, counts it, suppresses and is reported',
    { kind: 'complained' },
    'sent',
    false,
    { moveTo: 'complained', count: 'complained', feedback: complaint },
  ],
  [
    'a complaint about a bounced recipient keeps its state but still counts',
    { kind: 'complained' },
    'bounced',
    false,
    { moveTo: null, count: 'complained', feedback: complaint },
  ],
  ['a second complaint counts nothing more', { kind: 'complained' }, 'complained', true, { moveTo: null, count: null, feedback: complaint }],
  ['a purge ends a held recipient as failed, reported to nobody', { kind: 'purged', notify: false }, 'held', false, { moveTo: 'failed', count: null, feedback: none }],
  [
    'a purge with notice is a soft bounce: reported, never suppressed, not counted',
    { kind: 'purged', notify: true },
    'deferred',
    false,
    { moveTo: 'failed', count: null, feedback: softBounce },
  ],
  ['a purge leaves a recipient being attempted alone', { kind: 'purged', notify: true }, 'sending', false, null],
  ['a purge does nothing to a finished recipient', { kind: 'purged', notify: false }, 'sent', false, null],
];

t.test('each outcome has the effects the table gives, whatever path it came by', async (t) => {
  for (const [name, outcome, state, complained, expected] of ROWS) t.same(effectsOf(outcome, { state, complained }), expected, name);
});

t.test('a delivery attempt result stands for its outcome', async (t) => {
  t.same(outcomeOfAttempt('sent'), { kind: 'delivered' });
  t.same(outcomeOfAttempt('deferred'), { kind: 'deferred' });
  t.same(outcomeOfAttempt('bounced', true), { kind: 'bounced', hard: true, source: 'smtp' });
  t.same(outcomeOfAttempt('failed'), { kind: 'expired' });
});

t.test("an operator's queue operations apply only to recipients the state rules let them move, never to one being attempted", async (t) => {
  t.ok(OPERATION_APPLIES_TO.hold.every((s) => canMove(s, 'held')));
  t.ok(OPERATION_APPLIES_TO.release.every((s) => canMove(s, 'queued') && canMove(s, 'deferred')));
  t.ok(OPERATION_APPLIES_TO.purge.every((s) => canMove(s, 'failed')));
  t.ok(Object.values(OPERATION_APPLIES_TO).every((states) => !states.includes('sending')));
  t.notOk(canMove('held', 'sending'), 'a held recipient is never attempted');
});

t.test('a message with a held recipient is still pending', async (t) => {
  t.equal(messageStatusOf(['held', 'sent']), 'pending');
  t.equal(messageStatusOf(['failed', 'sent']), 'sent');
});
