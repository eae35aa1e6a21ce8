// The contract of WebhookRepository: the per-team limit, changes field by field, subscribers by event.
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { WebhookFields } from '../../../shared/store/webhooks.js';

const fields = (title: string, events: WebhookFields['events'] = ['bounced']): WebhookFields => ({
  title,
  url: `https://hooks.example.com/${title}`,
  events,
  includeMessage: false,
});

export const webhookChecks: ContractCheck[] = [
  check('webhooks per team stop at the limit, even when created all at once', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const outcomes = await Promise.all(Array.from({ length: 7 }, (_, i) => store.webhooks.create(team.id, fields(`race${i}`), 'sealed', 3)));
    t.equal(outcomes.filter((o) => o !== 'limit_reached').length, 3);
    t.equal(outcomes.filter((o) => o === 'limit_reached').length, 4);
    t.equal((await store.webhooks.list(team.id, { page: 1, perPage: 10 })).total, 3);
    t.not(await store.webhooks.create(other.id, fields('other'), 'sealed', 3), 'limit_reached', 'each team counts its own');
  }),

  check('every team of many creating webhooks at the same moment stops at its own limit', async (t, engine) => {
    const { store } = await engine.open(t);
    const teams = await Promise.all(Array.from({ length: 6 }, () => accountOf(store)));
    const created = await Promise.all(
      teams.map(async (team) => {
        const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => store.webhooks.create(team.id, fields(`race${i}`), 'sealed', 2)));
        return outcomes.filter((o) => o !== 'limit_reached').length;
      }),
    );
    t.same(created, [2, 2, 2, 2, 2, 2]);
    const listed = await Promise.all(teams.map(async (team) => (await store.webhooks.list(team.id, { page: 1, perPage: 10 })).total));
    t.same(listed, [2, 2, 2, 2, 2, 2]);
  }),

  check('a webhook is created active, changed field by field, listed oldest first, and reached only through its team', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const hook = await store.webhooks.create(team.id, { ...fields('first'), includeMessage: true }, 'sealed-secret', 10);
    if (hook === 'limit_reached') throw new Error('under the limit');
    t.match(hook, {
      teamId: team.id,
      title: 'first',
      url: 'https://hooks.example.com/first',
      events: ['bounced'],
      status: 'active',
      includeMessage: true,
      secretEnc: 'sealed-secret',
    });
    t.same(await store.webhooks.get(hook.id, team.id), hook);
    t.equal(await store.webhooks.get(hook.id, other.id), undefined);
    const renamed = await store.webhooks.update(hook.id, team.id, { title: 'renamed' });
    t.match(renamed, { title: 'renamed', url: hook.url, events: ['bounced'], includeMessage: true, status: 'active' }, 'only the title changes');
    const changed = await store.webhooks.update(hook.id, team.id, { events: ['complaint', 'bounced'], includeMessage: false, status: 'inactive' });
    t.match(changed, { title: 'renamed', events: ['complaint', 'bounced'], includeMessage: false, status: 'inactive' });
    t.equal(await store.webhooks.update(hook.id, other.id, { title: 'taken' }), undefined, 'not changed through another team');
    await store.webhooks.create(team.id, fields('second'), 'sealed', 10);
    const page = await store.webhooks.list(team.id, { page: 1, perPage: 1 });
    t.same({ titles: page.rows.map((w) => w.title), total: page.total }, { titles: ['renamed'], total: 2 });
    t.equal(await store.webhooks.remove(hook.id, other.id), false);
    t.equal(await store.webhooks.remove(hook.id, team.id), true);
    t.equal(await store.webhooks.remove(hook.id, team.id), false, 'removed once');
    t.same(
      (await store.webhooks.list(team.id, { page: 1, perPage: 10 })).rows.map((w) => w.title),
      ['second'],
    );
  }),

  check('the subscribers of an event are the team’s active webhooks that list it', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const make = async (teamId: number, title: string, events: WebhookFields['events']) => {
      const hook = await store.webhooks.create(teamId, fields(title, events), 'sealed', 10);
      if (hook === 'limit_reached') throw new Error('under the limit');
      return hook;
    };
    await make(team.id, 'bounces', ['bounced']);
    await make(team.id, 'complaints', ['complaint']);
    await make(team.id, 'both', ['complaint', 'bounced']);
    const paused = await make(team.id, 'paused', ['bounced', 'complaint']);
    await store.webhooks.update(paused.id, team.id, { status: 'inactive' });
    await make(other.id, 'elsewhere', ['bounced']);
    const titles = async (event: 'bounced' | 'complaint') => (await store.webhooks.subscribers(team.id, event)).map((w) => w.title).sort();
    t.same(await titles('bounced'), ['both', 'bounces']);
    t.same(await titles('complaint'), ['both', 'complaints']);
  }),
];
