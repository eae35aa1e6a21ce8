// The readiness verdict from probe results (shared/readiness.ts): every part must answer true within the time
// limit; a probe that fails, throws or never answers names its part, in a fixed order.
import t from 'tap';
import { decideReadiness } from '../shared/readiness.js';

const yes = () => Promise.resolve(true);

t.test('every part answering makes the process ready', async (t) => {
  t.same(await decideReadiness({ store: yes, redis: yes, listeners: yes }, 200), { ready: true });
});

t.test('a part answering false, rejecting or never answering is failing, listed as store, redis, listeners', async (t) => {
  const started = Date.now();
  const verdict = await decideReadiness(
    {
      listeners: () => Promise.resolve(false),
      redis: () => new Promise<boolean>(() => undefined),
      store: () => Promise.reject(new Error('disk I/O error')),
    },
    200,
  );
  t.same(verdict, { ready: false, failing: ['store', 'redis', 'listeners'] });
  t.ok(Date.now() - started < 2_000, 'a probe that never answers is given up at the limit');
});

t.test('only the parts a process has are asked', async (t) => {
  t.same(await decideReadiness({ redis: () => Promise.resolve(false) }, 200), { ready: false, failing: ['redis'] });
});
