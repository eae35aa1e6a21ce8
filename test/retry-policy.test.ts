// The retry policy (config/retry.json and its environment overrides): loading, validation and the schedule it gives.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError } from '../shared/config.js';
import { expiresAt, nextAttemptAt, retryDelayS } from '../mta/delivery/retry-policy.js';
import { loadRetryPolicy, type RetryPolicy } from '../shared/policies/retry.js';

const policy = loadRetryPolicy({ env: {} });
const queuedAt = new Date('2025-03-01T12:00:00Z');
const at = (seconds: number) => new Date(queuedAt.getTime() + seconds * 1000);
const secondsAfter = (from: Date, to: Date | 'expired') => {
  if (to === 'expired') throw new Error('expired');
  return (to.getTime() - from.getTime()) / 1000;
};
// random() of 0.5 means no jitter; 0 and 1 are its two ends.
const middle = () => 0.5;

t.test('the default schedule is 1m, 5m, 15m, 30m, 1h, 2h, 4h within a 5-day queue life', async (t) => {
  t.same(policy.delaysS, [60, 300, 900, 1800, 3600, 7200, 14400]);
  t.equal(policy.maxQueueAgeS, 432000);
  t.equal(policy.jitterRatio, 0.1);
  t.equal(policy.requeueWindowS, 259200, 'bodies of bounced or failed messages are kept three days for requeue');
  t.ok(Object.isFrozen(policy) && Object.isFrozen(policy.delaysS));
});

t.test('the first retry comes about 60 seconds after the first failure', async (t) => {
  const now = at(1);
  t.equal(secondsAfter(now, nextAttemptAt(1, queuedAt, now, policy, middle)), 60);
  t.equal(
    secondsAfter(
      now,
      nextAttemptAt(1, queuedAt, now, policy, () => 0),
    ),
    54,
  );
  t.equal(
    secondsAfter(
      now,
      nextAttemptAt(1, queuedAt, now, policy, () => 1),
    ),
    66,
  );
});

t.test('each failure moves one step along the list', async (t) => {
  const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayS(n, policy));
  t.same(steps, [60, 300, 900, 1800, 3600, 7200, 14400]);
});

t.test('after the list, retries come every 14400 seconds', async (t) => {
  for (const attempts of [8, 9, 20, 100]) {
    const now = at(86400);
    t.equal(secondsAfter(now, nextAttemptAt(attempts, queuedAt, now, policy, middle)), 14400, `after ${attempts} attempts`);
  }
});

t.test('a recipient not yet attempted is due at once', async (t) => {
  t.equal(secondsAfter(queuedAt, nextAttemptAt(0, queuedAt, queuedAt, policy, middle)), 0);
});

t.test('a negative or fractional attempt count is a programming error', async (t) => {
  t.throws(() => retryDelayS(-1, policy), RangeError);
  t.throws(() => retryDelayS(1.5, policy), RangeError);
});

t.test('jitter spreads retries of one destination over ±10% of the delay', async (t) => {
  const now = at(10);
  const times = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const s = secondsAfter(now, nextAttemptAt(3, queuedAt, now, policy));
    t.ok(s >= 810 && s <= 990, `${s} s within 900 ± 10%`);
    times.add(Math.floor(s));
  }
  t.ok(times.size > 10, `${times.size} distinct seconds`);
});

t.test('a recipient older than the max queue age has expired', async (t) => {
  t.equal(nextAttemptAt(30, queuedAt, at(432000), policy, middle), 'expired');
  t.equal(nextAttemptAt(30, queuedAt, at(500000), policy, middle), 'expired');
  t.same(expiresAt(queuedAt, policy), at(432000));
});

t.test('a retry that would fall after the deadline is moved onto it', async (t) => {
  const now = at(432000 - 600);
  t.same(nextAttemptAt(30, queuedAt, now, policy, middle), at(432000));
});

t.test('TERNMAIL_RETRY_DELAYS_S and TERNMAIL_MAX_QUEUE_AGE_S override the file', async (t) => {
  const custom = loadRetryPolicy({ env: { TERNMAIL_RETRY_DELAYS_S: '5, 10,20', TERNMAIL_MAX_QUEUE_AGE_S: '120' } });
  t.same(custom.delaysS, [5, 10, 20]);
  t.equal(custom.maxQueueAgeS, 120);
  t.equal(retryDelayS(9, custom), 20, 'the last delay repeats');
  t.equal(nextAttemptAt(1, queuedAt, at(121), custom), 'expired');
});

t.test('an empty override counts as unset', async (t) => {
  t.same(loadRetryPolicy({ env: { TERNMAIL_RETRY_DELAYS_S: '', TERNMAIL_MAX_QUEUE_AGE_S: ' ' } }), policy);
});

t.test('an invalid override is rejected with the variable named', async (t) => {
  const bad: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ TERNMAIL_RETRY_DELAYS_S: '60,abc' }, /TERNMAIL_RETRY_DELAYS_S="60,abc": must be integer/],
    [{ TERNMAIL_RETRY_DELAYS_S: '60,,300' }, /TERNMAIL_RETRY_DELAYS_S/],
    [{ TERNMAIL_RETRY_DELAYS_S: '-5' }, /TERNMAIL_RETRY_DELAYS_S/],
    [{ TERNMAIL_RETRY_DELAYS_S: '1.5' }, /TERNMAIL_RETRY_DELAYS_S/],
    [{ TERNMAIL_RETRY_DELAYS_S: '0,60' }, /TERNMAIL_RETRY_DELAYS_S="0,60": must be >= 1/],
    [{ TERNMAIL_MAX_QUEUE_AGE_S: '5d' }, /TERNMAIL_MAX_QUEUE_AGE_S="5d": must be integer/],
    [{ TERNMAIL_MAX_QUEUE_AGE_S: '0' }, /TERNMAIL_MAX_QUEUE_AGE_S="0": must be >= 1/],
  ];
  for (const [env, message] of bad) {
    t.throws(() => loadRetryPolicy({ env }), ConfigError, JSON.stringify(env));
    t.throws(() => loadRetryPolicy({ env }), { message }, JSON.stringify(env));
  }
});

t.test('every invalid override is named in one error, with the file and the environment as its sources', async (t) => {
  t.throws(() => loadRetryPolicy({ env: { TERNMAIL_RETRY_DELAYS_S: '0,60', TERNMAIL_MAX_QUEUE_AGE_S: '5d' } }), {
    message:
      /^invalid retry policy in \S+\/config\/retry\.json \+ the environment: TERNMAIL_RETRY_DELAYS_S="0,60": must be >= 1; TERNMAIL_MAX_QUEUE_AGE_S="5d": must be integer$/,
  });
});

t.test('a malformed policy file is rejected', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-retry-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (content: string) => {
    const file = join(dir, `retry-${Math.random()}.json`);
    writeFileSync(file, content);
    return file;
  };
  t.throws(() => loadRetryPolicy({ env: {}, path: write('{') }), { message: /cannot read retry policy/ });
  t.throws(() => loadRetryPolicy({ env: {}, path: write('[]') }), { message: /not a JSON object/ });
  const noJitter = write(JSON.stringify({ delaysS: [60], maxQueueAgeS: 600, requeueWindowS: 0 }));
  t.throws(() => loadRetryPolicy({ env: {}, path: noJitter }), { message: /missing setting jitterRatio/ });
  const hugeJitter = write(JSON.stringify({ delaysS: [60], maxQueueAgeS: 600, jitterRatio: 2, requeueWindowS: 0 }));
  t.throws(() => loadRetryPolicy({ env: {}, path: hugeJitter }), { message: /jitterRatio: must be <= 0.5/ });
  const empty = write(JSON.stringify({ delaysS: [], maxQueueAgeS: 600, jitterRatio: 0, requeueWindowS: 0 }));
  t.throws(() => loadRetryPolicy({ env: {}, path: empty }), { message: /delaysS: must NOT have fewer than 1 items/ });
});

t.test('a policy without jitter retries on the exact schedule', async (t) => {
  const exact: RetryPolicy = { delaysS: [30], maxQueueAgeS: 3600, jitterRatio: 0, requeueWindowS: 0 };
  t.equal(secondsAfter(at(0), nextAttemptAt(1, queuedAt, at(0), exact)), 30);
});
