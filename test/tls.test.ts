// The SMTP TLS pair: a self-signed one made once in the data dir, or the configured one.
import t from 'tap';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../shared/config.js';
import { ensureTlsCertificate, readTls } from '../shared/tls.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-tls-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'empty.json');
writeFileSync(configFile, '{}');

const configFor = (dataDir: string, env: Record<string, string> = {}) =>
  loadConfig({ env: { TERNMAIL_CONFIG: configFile, TERNMAIL_DATA_DIR: dataDir, TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test', ...env } });

t.test('the first start makes one self-signed pair whose key matches its certificate, and later starts keep it', async (t) => {
  const dataDir = join(dir, 'race');
  const config = configFor(dataDir);
  const results = await Promise.all([ensureTlsCertificate(config), ensureTlsCertificate(config), ensureTlsCertificate(config)]);
  for (const r of results) {
    t.equal(r.selfSigned, true);
    t.equal(r.certPath, join(dataDir, 'tls', 'cert.pem'));
    t.equal(r.keyPath, join(dataDir, 'tls', 'key.pem'));
  }
  const { cert, key } = readTls(results[0]);
  const x509 = new X509Certificate(cert);
  t.ok(x509.checkPrivateKey(createPrivateKey(key)), 'the key on disk belongs to the certificate on disk');
  t.match(x509.subjectAltName, /DNS:mx\.tern\.test/, 'the certificate names the public host name');
  t.match(x509.subjectAltName, /DNS:localhost/);
  t.equal(statSync(results[0].keyPath).mode & 0o777, 0o600, 'the private key is readable by its owner only');
  t.same(
    readdirSync(dataDir).filter((n) => n.startsWith('.tls-')),
    [],
    'no staging directory is left behind',
  );

  const again = await ensureTlsCertificate(config);
  t.equal(readFileSync(again.certPath, 'utf8'), cert.toString(), 'a later start keeps the same certificate');
});

t.test('a configured certificate and key are used as given', async (t) => {
  const config = configFor(join(dir, 'configured'), { TERNMAIL_TLS_CERT: '/etc/ssl/tern/cert.pem', TERNMAIL_TLS_KEY: '/etc/ssl/tern/key.pem' });
  t.same(await ensureTlsCertificate(config), { certPath: '/etc/ssl/tern/cert.pem', keyPath: '/etc/ssl/tern/key.pem', selfSigned: false });
});

t.test('a tls directory without its pair is an error that says what to do', async (t) => {
  const dataDir = join(dir, 'broken');
  const config = configFor(dataDir);
  const first = await ensureTlsCertificate(config);
  rmSync(first.certPath);
  await t.rejects(ensureTlsCertificate(config), /exists but does not hold cert\.pem and key\.pem; remove it/);
});
