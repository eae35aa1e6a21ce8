// The bodies the MTA accepts are handed to its deliveries in memory (shared/intake/body-hand-off.ts): taken once,
// bounded by bytes, and the store is read whenever a body is not there.
import t from 'tap';
import { BodyHandOff } from '../shared/intake/body-hand-off.js';
import { DeliveryMaterial } from '../shared/core/delivery-material.js';
import type { Store } from '../shared/store/index.js';

/** A store whose message bodies are counted reads of `stored`. */
function storeOf(stored: Map<string, Buffer>): { store: Pick<Store, 'messages' | 'domains' | 'teams'>; reads: () => number } {
  let reads = 0;
  const messages = {
    body: (id: string) => {
      reads++;
      return Promise.resolve(stored.get(id));
    },
  } as unknown as Store['messages'];
  return { store: { messages, domains: {} as Store['domains'], teams: {} as Store['teams'] }, reads: () => reads };
}

const config = { delivery: { pools: {} }, publicHostname: 'mx.tern.test' } as unknown as ConstructorParameters<typeof DeliveryMaterial>[1];

t.test('a body handed off is read from memory once; later reads, and bodies not handed off, come from the store', async (t) => {
  const stored = new Map([
    ['m1', Buffer.from('stored one')],
    ['m2', Buffer.from('stored two')],
  ]);
  const { store, reads } = storeOf(stored);
  const handOff = new BodyHandOff();
  const material = new DeliveryMaterial(store, config, handOff);
  handOff.keep('m1', Buffer.from('accepted one'));
  t.equal((await material.body('m1'))?.toString(), 'accepted one', 'the accepted body, from memory');
  t.equal(reads(), 0, 'no read of the store');
  t.equal((await material.body('m1'))?.toString(), 'stored one', 'a second read goes to the store');
  t.equal((await material.body('m2'))?.toString(), 'stored two', 'a body not handed off comes from the store');
  t.equal(reads(), 2);
  t.equal(await material.body('gone'), undefined, 'a message gone has no body');
});

t.test('the hand-off keeps no body over 1 MB and at most 32 MB in all, the oldest leaving first', async (t) => {
  const handOff = new BodyHandOff();
  handOff.keep('large', Buffer.alloc(1024 * 1024 + 1));
  t.equal(handOff.take('large'), undefined, 'a body over 1 MB is left to the store');
  for (let i = 0; i < 40; i++) handOff.keep(`m${i}`, Buffer.alloc(1024 * 1024, i));
  t.equal(handOff.take('m0'), undefined, 'the oldest went when 32 MB were held');
  t.equal(handOff.take('m39')?.[0], 39, 'the newest is there');
});
