// The contract of TeamRepository: accounts, child teams, the team limit, credits, status transitions, account settings and icons.
import { accountOf, check, type ContractCheck } from './fixtures.js';

export const teamChecks: ContractCheck[] = [
  check('an account is created with its figures, found by id and counted; an unknown id is not found', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await store.teams.createAccount({ name: 'Acme', credits: 250, limitPerSecond: 12, planType: 'pro', backendRegion: 'eu' });
    t.match(account, { parentId: null, name: 'Acme', status: 'active', suspendedBy: null, planType: 'pro', creditBalance: 250, limitPerSecond: 12, backendRegion: 'eu' });
    t.match(account.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    t.same(await store.teams.get(account.id), account, 'read back as created');
    t.equal(await store.teams.count(), 1);
    t.equal(await store.teams.get(account.id + 1000), undefined);
  }),

  check('a team takes its parent’s plan, rate and region, holds no credits of its own, and draws on the pooled balance', async (t, engine) => {
    const { store } = await engine.open(t);
    const parent = await accountOf(store, 300);
    const first = await store.teams.createTeam(parent, 'First', 10);
    const second = await store.teams.createTeam(parent, 'Second', 10);
    if (first === 'limit_reached' || second === 'limit_reached') throw new Error('under the limit');
    t.match(first, { parentId: parent.id, name: 'First', planType: 'free', limitPerSecond: 10, backendRegion: 'eu', creditBalance: 0 });
    t.same(
      (await store.teams.children(parent.id)).map((c) => c.name),
      ['First', 'Second'],
      'children, oldest first',
    );
    t.same(await store.teams.children(first.id), [], 'a team has no children');
    t.equal(await store.teams.payerBalance(first), 300, 'the pooled balance is the parent’s');
    t.match(
      await store.credits.post({ payerId: parent.id, kind: 'grant', amount: 25, actor: { kind: 'cli', id: null }, reference: null, reason: '' }),
      { balanceAfter: 325 },
      'credits go to the account',
    );
    t.equal(await store.teams.payerBalance(first), 325);
    t.equal(await store.teams.count(), 3);
  }),

  check('a team is renamed and its rate and plan updated; a deleted team is neither found, listed, changed nor counted', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const parent = await accountOf(store);
    const team = await store.teams.createTeam(parent, 'Old name', 10);
    if (team === 'limit_reached') throw new Error('under the limit');
    t.equal((await store.teams.rename(team.id, 'New name'))?.name, 'New name');
    t.match(await store.teams.update(team.id, { limitPerSecond: 3 }), { limitPerSecond: 3, planType: 'free' }, 'only the fields given change');
    t.match(await store.teams.update(team.id, { planType: 'pro' }), { limitPerSecond: 3, planType: 'pro' });
    await support.deleteTeam(team.id);
    t.equal(await store.teams.get(team.id), undefined);
    t.same(await store.teams.children(parent.id), []);
    t.equal(await store.teams.rename(team.id, 'Back'), undefined);
    t.equal(await store.teams.update(team.id, { limitPerSecond: 9 }), undefined);
    t.equal(await store.teams.count(), 1);
  }),

  check('teams per account stop at the limit, even when created all at once, and a deleted team frees its place', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const parent = await accountOf(store);
    const other = await accountOf(store);
    await store.teams.createTeam(other, 'Elsewhere', 5);
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => store.teams.createTeam(parent, `Racer ${i}`, 5)));
    const created = outcomes.filter((o) => o !== 'limit_reached');
    t.equal(created.length, 5, 'exactly the limit is created');
    t.equal(outcomes.filter((o) => o === 'limit_reached').length, 7, 'the others are refused as limit_reached');
    t.equal((await store.teams.children(parent.id)).length, 5);
    t.equal(await store.teams.createTeam(parent, 'One more', 5), 'limit_reached');
    await support.deleteTeam(created[0]!.id);
    t.not(await store.teams.createTeam(parent, 'In its place', 5), 'limit_reached');
    t.not(await store.teams.createTeam(other, 'Other account', 5), 'limit_reached', 'another account counts its own');
  }),

  check('a team’s status moves by the transition rule: an owner cannot lift a platform suspension', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const state = async (wanted: 'active' | 'suspended', actor: 'account' | 'platform') => {
      const change = await store.teams.changeStatus(team.id, wanted, actor);
      return change.ok ? { status: change.team.status, by: change.team.suspendedBy } : change.refusal;
    };
    t.same(await state('suspended', 'account'), { status: 'suspended', by: 'account' });
    t.same(await state('active', 'account'), { status: 'active', by: null });
    t.same(await state('suspended', 'platform'), { status: 'suspended', by: 'platform' });
    t.same(await state('suspended', 'account'), { status: 'suspended', by: 'platform' }, 'an owner’s suspension does not replace the platform’s');
    t.equal(await state('active', 'account'), 'suspended_by_platform');
    t.match(await store.teams.get(team.id), { status: 'suspended', suspendedBy: 'platform' }, 'a refusal changes nothing');
    t.same(await state('active', 'platform'), { status: 'active', by: null });
    t.same(await store.teams.changeStatus(team.id + 1000, 'suspended', 'account'), { ok: false, refusal: 'not_found' });
  }),

  check('account settings change together; a field left out stays; an icon is a URL or an uploaded icon of the team, never both', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    t.match(account, { timeZone: 'UTC', icon: null }, 'UTC and no icon at first');
    const changed = await store.teams.updateSettings(account.id, {
      name: 'Renamed',
      backendRegion: 'us',
      timeZone: 'Europe/Paris',
      icon: { kind: 'url', url: 'https://x.test/a.png' },
    });
    t.match(changed, { name: 'Renamed', backendRegion: 'us', timeZone: 'Europe/Paris', icon: { kind: 'url', url: 'https://x.test/a.png' } });
    t.match(
      await store.teams.updateSettings(account.id, { timeZone: 'Asia/Tokyo' }),
      { name: 'Renamed', timeZone: 'Asia/Tokyo', icon: { kind: 'url' } },
      'the rest stays',
    );
    t.equal(await store.teams.updateSettings(account.id, { name: 'No', icon: { kind: 'uploaded', id: 'nosuch' } }), 'no_such_icon');
    t.equal((await store.teams.get(account.id))?.name, 'Renamed', 'a refused change changes nothing');
    const shown = await store.teams.saveIcon({ id: 'icon-1', teamId: account.id, contentType: 'image/png', content: Buffer.from([1, 2, 3]) });
    t.same(shown?.icon, { kind: 'uploaded', id: 'icon-1' }, 'an uploaded icon replaces the URL');
    t.match(await store.teams.icon('icon-1'), { id: 'icon-1', teamId: account.id, contentType: 'image/png', content: Buffer.from([1, 2, 3]) });
    t.equal(await store.teams.saveIcon({ id: 'icon-x', teamId: account.id + 1000, contentType: 'image/png', content: Buffer.from([1]) }), undefined, 'no team, no icon');
    t.equal(await store.teams.icon('icon-x'), undefined);
    const other = await accountOf(store, 0, 'Other');
    t.equal(await store.teams.updateSettings(other.id, { icon: { kind: 'uploaded', id: 'icon-1' } }), 'no_such_icon', 'another team’s icon is not one of its own');
    await store.teams.saveIcon({ id: 'icon-2', teamId: account.id, contentType: 'image/webp', content: Buffer.from([4]) });
    t.equal(await store.teams.icon('icon-1'), undefined, 'the icon replaced is deleted');
    t.match(await store.teams.updateSettings(account.id, { icon: null }), { icon: null }, 'the icon removed');
    t.equal(await store.teams.icon('icon-2'), undefined, 'an icon no longer shown is deleted');
  }),
];
