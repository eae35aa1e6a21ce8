// DKIM signing checked by an independent verifier (mailauth) that reads the public key from a real
// DNS server on loopback.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers/cli.js';
import MailComposer from 'nodemailer/lib/mail-composer';
import DKIM from 'nodemailer/lib/dkim';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { DNSResolver } from 'mailauth';
import { createResolver } from '../shared/dns.js';
import { dkimTxt, generateDkimKeyPair } from '../shared/dns-records.js';
import { loadSecretBox, SecretBox } from '../shared/secret-box.js';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import { DkimKeyCache, plainRelaxedBodyHash, SIGNED_HEADER_FIELDS, signMessage, type DkimKey } from '../mta/delivery/dkim.js';
import { startDnsServer } from './helpers/dns-server.js';

const DOMAIN = 'sender.test';
const SELECTOR = 'tern1';
const LIST_UNSUBSCRIBE = '<mailto:unsub@sender.test?subject=u>,\r\n   <https://sender.test/u?id=42&t=a%20b>';

const dns = await startDnsServer();
t.teardown(() => dns.close());
const resolver = createResolver([dns.address]);
const { publicKey, privateKeyPem } = await generateDkimKeyPair(2048);
dns.set(`${SELECTOR}._domainkey.${DOMAIN}`, [{ type: 'TXT', data: dkimTxt(publicKey) }]);
const key: DkimKey = { domain: DOMAIN, selector: SELECTOR, privateKeyPem };

// mailauth asks only for TXT records when verifying DKIM; everything goes to our loopback server.
const viaLoopback: DNSResolver = async (name, type) => {
  if (type !== 'TXT') throw Object.assign(new Error(`unexpected ${type} lookup`), { code: 'ENOTFOUND' });
  return resolver.resolveTxt(name);
};

async function compose(extra: { listUnsubscribe?: boolean; attachment?: Buffer } = {}): Promise<Buffer> {
  const headers: Record<string, { prepared: true; value: string } | string> = {};
  if (extra.listUnsubscribe) {
    // prepared: the composer writes the value as given, so the test controls its exact bytes
    headers['List-Unsubscribe'] = { prepared: true, value: LIST_UNSUBSCRIBE };
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return new MailComposer({
    from: { name: 'Sender Ünïcode', address: `hello@${DOMAIN}` },
    to: 'Someone <someone@receiver.test>',
    cc: 'other@receiver.test',
    replyTo: `support@${DOMAIN}`,
    subject: 'Ünïcode subject with   spaces',
    text: 'Hello,\r\n\r\nline with trailing spaces   \r\n\ttabbed\r\n\r\n\r\n',
    html: '<p>Hello <b>there</b></p>',
    headers,
    attachments: extra.attachment ? [{ filename: 'blob.bin', content: extra.attachment }] : [],
  })
    .compile()
    .build();
}

/** The verifier's result for the message's only signature. */
async function verify(message: Buffer) {
  const { results } = await dkimVerify(message, { resolver: viaLoopback });
  if (results.length !== 1) throw new Error(`expected one signature, found ${results.length}`);
  return results[0]!;
}

function signatureTags(signed: Buffer): Map<string, string> {
  const head = signed.toString('latin1').split(/\r\n(?![ \t])/)[0]!;
  if (!head.startsWith('DKIM-Signature: ')) throw new Error('no DKIM-Signature field first');
  const tags = new Map<string, string>();
  for (const part of head.slice(head.indexOf(':') + 1).split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags.set(part.slice(0, at).trim(), part.slice(at + 1).replace(/\s+/g, ''));
  }
  return tags;
}

t.test('a signed message passes an independent verifier that reads the key from DNS', async (t) => {
  const signed = await signMessage(await compose({ listUnsubscribe: true }), key);
  const result = await verify(signed);
  t.equal(result.status.result, 'pass', result.status.comment ?? '');
  t.equal(result.signingDomain, DOMAIN);
  t.equal(result.selector, SELECTOR);
  const tags = signatureTags(signed);
  t.equal(tags.get('a'), 'rsa-sha256');
  t.equal(tags.get('c'), 'relaxed/relaxed');
  t.ok(
    dns.queries.some((q) => q.name === `${SELECTOR}._domainkey.${DOMAIN}` && q.type === 'TXT'),
    'key read from DNS',
  );
});

t.test('a message altered after signing fails verification', async (t) => {
  const signed = await signMessage(await compose(), key);
  const bodyAltered = Buffer.from(signed.toString('latin1').replace('<b>there</b>', '<b>thief</b>'), 'latin1');
  t.not(bodyAltered.equals(signed), 'body changed');
  // RFC 6376 §6.1.3 lets a body hash mismatch be reported as fail or (mailauth's choice) neutral
  const body = (await verify(bodyAltered)).status;
  t.not(body.result, 'pass', 'body change detected');
  t.match(body.comment, /body hash/);
  const headerAltered = Buffer.from(signed.toString('latin1').replace(/^Reply-To: .*$/m, 'Reply-To: thief@evil.test'), 'latin1');
  t.not(headerAltered.equals(signed), 'header changed');
  t.equal((await verify(headerAltered)).status.result, 'fail', 'header change detected');
});

t.test('List-Unsubscribe and List-Unsubscribe-Post are in h= when the message has them', async (t) => {
  const h = (signed: Buffer) => (signatureTags(signed).get('h') ?? '').split(':');
  const withList = h(await signMessage(await compose({ listUnsubscribe: true }), key));
  t.ok(withList.includes('list-unsubscribe'), 'List-Unsubscribe signed');
  t.ok(withList.includes('list-unsubscribe-post'), 'List-Unsubscribe-Post signed');
  for (const field of ['from', 'to', 'cc', 'subject', 'date', 'message-id', 'reply-to', 'mime-version', 'content-type']) {
    t.ok(withList.includes(field), `${field} signed`);
  }
  const signed = await signMessage(await compose({ listUnsubscribe: true }), key);
  const postAltered = Buffer.from(signed.toString('latin1').replace('List-Unsubscribe=One-Click', 'List-Unsubscribe=Other'), 'latin1');
  t.equal((await verify(postAltered)).status.result, 'fail', 'a changed List-Unsubscribe-Post breaks the signature');
  const without = h(await signMessage(await compose(), key));
  t.notOk(without.includes('list-unsubscribe'), 'absent fields are not listed');
  t.ok(SIGNED_HEADER_FIELDS.toLowerCase().split(':').includes('list-unsubscribe-post'));
});

t.test('the original bytes, List-Unsubscribe included, follow the signature unchanged', async (t) => {
  const raw = await compose({ listUnsubscribe: true });
  t.ok(raw.includes(`List-Unsubscribe: ${LIST_UNSUBSCRIBE}\r\n`), 'composer kept the folded value');
  const signed = await signMessage(raw, key);
  t.ok(signed.subarray(signed.length - raw.length).equals(raw), 'message bytes unchanged after the DKIM-Signature field');
  t.ok(signed.includes(`List-Unsubscribe: ${LIST_UNSUBSCRIBE}\r\n`), 'List-Unsubscribe bytes unchanged');
  t.equal((await verify(signed)).status.result, 'pass');
});

t.test('the signature is byte for byte the one nodemailer signs synchronously', async (t) => {
  const raw = await compose({ listUnsubscribe: true });
  const ours = await signMessage(raw, key);
  const signer = new DKIM({ domainName: DOMAIN, keySelector: SELECTOR, privateKey: privateKeyPem, headerFieldNames: SIGNED_HEADER_FIELDS });
  const chunks: Buffer[] = [];
  for await (const chunk of signer.sign(raw)) chunks.push(chunk as Buffer);
  t.equal(ours.toString('latin1'), Buffer.concat(chunks).toString('latin1'));
});

/** nodemailer's own relaxed body hash of `body`, from its streaming RelaxedBody. */
function nodemailerBodyHash(body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const hasher = new RelaxedBody({ hashAlgo: 'sha256' });
    hasher.once('hash', resolve);
    hasher.once('error', reject);
    hasher.resume();
    hasher.end(body);
  });
}

/**
 * A random body over the bytes relaxed canonicalisation treats apart: `wild`, any of spaces, tabs, CR, LF and
 * dots anywhere; else plain lines (words, single spaces, a leading space or dot, empty lines, CRLF), as mail is.
 */
function randomBody(random: () => number, lines: number, wild: boolean): Buffer {
  const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)]!;
  if (wild) return Buffer.from(Array.from({ length: lines * 6 }, () => pick(['a', 'b', '.', ' ', '  ', '\t', '\r', '\n', '\r\n', 'é'])).join(''), 'utf8');
  const line = () => (random() < 0.2 ? '' : pick(['', ' ', '.']) + Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(['ab', 'é', '..', 'x1'])).join(' '));
  const text = Array.from({ length: lines }, line).join('\r\n');
  return Buffer.from(text + pick(['', '\r\n', '\r\n\r\n']), 'utf8');
}

t.test('the relaxed body hash computed natively is nodemailer’s, for plain bodies and every other kind', async (t) => {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const plain = ['', 'a', 'a\r\n', 'a\r\n\r\n\r\n', '\r\n', '\r\n\r\n', ' a b\r\n.c\r\n\r\nd', 'x\r\n\r\ny\r\n'];
  for (const text of plain) {
    const body = Buffer.from(text);
    t.equal(plainRelaxedBodyHash(body), await nodemailerBodyHash(body), `plain ${JSON.stringify(text)}`);
  }
  for (const text of ['a\tb\r\n', 'a  b\r\n', 'a \r\n', 'a\nb\r\n', 'a\rb\r\n', 'a ', 'a\r']) {
    t.equal(plainRelaxedBodyHash(Buffer.from(text)), null, `left to nodemailer: ${JSON.stringify(text)}`);
  }
  let native = 0;
  let mismatches = 0;
  for (let i = 0; i < 3000; i++) {
    const wild = i % 2 === 1;
    const body = randomBody(random, 1 + (i % 12), wild);
    const ours = plainRelaxedBodyHash(body);
    if (ours === null) {
      if (!wild) t.fail(`a plain body left to nodemailer: ${JSON.stringify(body.toString('latin1'))}`);
      continue;
    }
    native++;
    const theirs = await nodemailerBodyHash(body);
    if (ours !== theirs && ++mismatches < 5) t.fail(`body ${JSON.stringify(body.toString('latin1'))}: ${ours} ≠ ${theirs}`);
  }
  t.equal(mismatches, 0, `each of ${native} random bodies hashed natively is hashed as nodemailer hashes it`);
  t.ok(native >= 1500, 'every plain body is hashed natively');
});

t.test('random messages are signed byte for byte as nodemailer signs them, whichever way their body is hashed', async (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const signer = new DKIM({ domainName: DOMAIN, keySelector: SELECTOR, privateKey: privateKeyPem, headerFieldNames: SIGNED_HEADER_FIELDS });
  const separators = ['\r\n\r\n', '\n\n', '\r\n\n', '\n\r\n'];
  for (let i = 0; i < 60; i++) {
    const header = `From: a@${DOMAIN}\r\nTo: b@dest.test\r\nSubject: s${i}`;
    const raw = Buffer.concat([Buffer.from(header + separators[i % separators.length]!), randomBody(random, 1 + (i % 7), i % 3 === 0)]);
    const chunks: Buffer[] = [];
    for await (const chunk of signer.sign(raw)) chunks.push(chunk as Buffer);
    t.equal((await signMessage(raw, key)).toString('latin1'), Buffer.concat(chunks).toString('latin1'), `message ${i}`);
  }
});

t.test('a large message with binary content signs across body slices and verifies', async (t) => {
  const signed = await signMessage(await compose({ attachment: randomBytes(3 * 1024 * 1024) }), key);
  t.equal((await verify(signed)).status.result, 'pass');
});

t.test('signing with an unusable key or selector is an error, not an unsigned message', async (t) => {
  const raw = await compose();
  await t.rejects(signMessage(raw, { ...key, privateKeyPem: 'not a key' }));
  await t.rejects(signMessage(raw, { ...key, selector: 'a; d=evil.test' }), /selector/);
});

t.test('the key cache opens a sealed key once per domain and again after the key changes', async (t) => {
  let opens = 0;
  class CountingBox extends SecretBox {
    override open(sealed: string): string {
      opens++;
      return super.open(sealed);
    }
  }
  const box = new CountingBox(randomBytes(32));
  const cache = new DkimKeyCache(box);
  const domain = { id: 'dom_1', name: DOMAIN, dkimSelector: SELECTOR, dkimPrivateKeyEnc: box.seal(privateKeyPem) };
  t.same(cache.keyFor(domain), key);
  t.equal(cache.privateKeyPem(domain), privateKeyPem);
  t.equal(opens, 1, 'opened once');
  const rotated = { ...domain, dkimPrivateKeyEnc: box.seal('rotated pem') };
  t.equal(cache.privateKeyPem(rotated), 'rotated pem');
  t.equal(opens, 2, 'a new sealed key is opened');
  cache.forget(domain.id);
  cache.privateKeyPem(rotated);
  t.equal(opens, 3, 'forgotten keys are opened again');
});

t.test('processes starting together on a fresh data dir all end with the same master key', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tern-key-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const module = join(repoRoot, 'dist', 'shared', 'secret-box.js');
  // Every process loads the module, then waits for the same instant, so that their first starts overlap.
  const startAt = Date.now() + 1500;
  const script = `import(${JSON.stringify(module)}).then((m) => { while (Date.now() < ${startAt}); process.stdout.write(m.loadSecretBox(${JSON.stringify(dataDir)}).seal('same key')); })`;
  const sealed = await Promise.all(
    Array.from(
      { length: 12 },
      () =>
        new Promise<string>((resolve, reject) =>
          execFile(process.execPath, ['-e', script], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
        ),
    ),
  );
  const box = loadSecretBox(dataDir);
  t.same(
    sealed.map((s) => box.open(s)),
    Array(12).fill('same key'),
    'every process sealed with the key that stayed',
  );
  t.same(readdirSync(join(dataDir, 'keys')), ['master.key'], 'no temporary file is left');
});
