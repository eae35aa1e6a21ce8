// The delivery connection cache (mta/connection-cache.ts), on nodemailer's own connection class.
import t from 'tap';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { ConnectionCache } from '../mta/delivery/connection-cache.js';

t.test('a connection kept and taken again many times leaves no listener of the cache behind', async (t) => {
  const cache = new ConnectionCache(60_000, 10);
  const conn = new SMTPConnection({ host: '127.0.0.1', port: 25 });
  const before = conn.listenerCount('end');
  for (let i = 0; i < 50; i++) {
    cache.put('mx.dest.test:25', conn);
    t.equal(conn.listenerCount('end'), before + 1, 'one listener while it waits');
    t.equal(cache.take('mx.dest.test:25'), conn);
  }
  t.equal(conn.listenerCount('end'), before, 'none once it is taken: a busy destination does not grow them');
  t.equal(cache.take('mx.dest.test:25'), null, 'and it is no longer kept');
});

t.test('a kept connection the server ends is forgotten', async (t) => {
  const cache = new ConnectionCache(60_000, 10);
  const conn = new SMTPConnection({ host: '127.0.0.1', port: 25 });
  cache.put('mx.dest.test:25', conn);
  conn.emit('end');
  t.equal(cache.take('mx.dest.test:25'), null);
  t.equal(conn.listenerCount('end'), 0);
});
