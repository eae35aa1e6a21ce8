// The SQLite store's point reads: lookups issued in one I/O round are answered by one fetch; nothing is kept.
import t from 'tap';
import { inList, pointReads } from '../../shared/store/sqlite/point-reads.js';

function counting() {
  const fetched: number[][] = [];
  let value = 0;
  const read = pointReads((keys: readonly number[]) => {
    fetched.push([...keys]);
    value++;
    return Promise.resolve(new Map(keys.filter((k) => k > 0).map((k) => [k, `${k}#${value}`])));
  });
  return { read, fetched };
}

t.test('lookups issued in the same round are answered by one fetch of their distinct keys', async (t) => {
  const { read, fetched } = counting();
  const answers = await Promise.all([read(1), read(2), read(1), read(-5)]);
  t.same(fetched, [[1, 2, -5]], 'one fetch, each key once');
  t.same(answers, ['1#1', '2#1', '1#1', undefined], 'each lookup gets its own key’s answer; a key without one gets undefined');
});

t.test('nothing is kept: a later lookup of the same key fetches again', async (t) => {
  const { read, fetched } = counting();
  t.equal(await read(7), '7#1');
  t.equal(await read(7), '7#2');
  t.same(fetched, [[7], [7]]);
});

t.test('lookups issued in different I/O rounds are fetched apart', async (t) => {
  const { read, fetched } = counting();
  const first = read(1);
  await new Promise((resolve) => setImmediate(resolve));
  const second = read(2);
  t.same(await Promise.all([first, second]), ['1#1', '2#2']);
  t.same(fetched, [[1], [2]]);
});

t.test('an IN list is padded to one of a few lengths by repeating its last key', async (t) => {
  t.same(inList(['a']), { params: ['a'], sql: '(?)' });
  t.same(inList(['a', 'b', 'c']), { params: ['a', 'b', 'c', 'c'], sql: '(?, ?, ?, ?)' });
  t.equal(inList(Array.from({ length: 65 }, (_, i) => i)).params.length, 100);
});
