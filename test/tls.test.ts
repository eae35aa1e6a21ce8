// The SMTP TLS pair: a self-signed one made once in the data dir, or the configured one.
import t from 'tap';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type ConnectionOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
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
  const { cert: certs, key: keys } = readTls(results[0]);
  t.equal(certs.length, 2, 'two pairs are served');
  for (const [i, kind] of (['rsa', 'ec'] as const).entries()) {
    const x509 = new X509Certificate(certs[i]!);
    t.ok(x509.checkPrivateKey(createPrivateKey(keys[i]!)), `${kind}: the key on disk belongs to the certificate on disk`);
    t.equal(x509.publicKey.asymmetricKeyType, kind, `the ${kind === 'ec' ? 'second is ECDSA' : 'first is RSA'}`);
    t.match(x509.subjectAltName, /DNS:mx\.tern\.test/, 'the certificate names the public host name');
    t.match(x509.subjectAltName, /DNS:localhost/);
  }
  t.equal(new X509Certificate(certs[1]!).publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1', 'on P-256');
  const cert = certs[0]!;
  t.equal(statSync(results[0].keyPath).mode & 0o777, 0o600, 'the private key is readable by its owner only');
  t.equal(statSync(results[0].ec!.keyPath).mode & 0o777, 0o600, 'the ECDSA private key too');
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
  t.same(await ensureTlsCertificate(config), { certPath: '/etc/ssl/tern/cert.pem', keyPath: '/etc/ssl/tern/key.pem', selfSigned: false, ec: null });
});

t.test('a tls directory without its pair is an error that says what to do', async (t) => {
  const dataDir = join(dir, 'broken');
  const config = configFor(dataDir);
  const first = await ensureTlsCertificate(config);
  rmSync(first.certPath);
  await t.rejects(ensureTlsCertificate(config), /exists but does not hold cert\.pem and key\.pem; remove it/);
});

t.test('a client is answered with the ECDSA certificate unless it knows only RSA, and an installation made before it gets it on its next start', async (t) => {
  const dataDir = join(dir, 'both');
  const config = configFor(dataDir);
  const first = await ensureTlsCertificate(config);
  // As an earlier release left it: the RSA pair alone.
  rmSync(join(dataDir, 'tls', 'ec'), { recursive: true });
  const files = await ensureTlsCertificate(config);
  t.equal(readFileSync(files.certPath, 'utf8'), readFileSync(first.certPath, 'utf8'), 'the RSA pair is kept');
  t.ok(files.ec && readFileSync(files.ec.certPath, 'utf8').includes('BEGIN CERTIFICATE'), 'the ECDSA pair is made beside it');
  const server = createServer({ ...readTls(files) }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const served = (options: ConnectionOptions) =>
    new Promise<string | undefined>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
        resolve(socket.getPeerX509Certificate()?.publicKey.asymmetricKeyType);
        socket.destroy();
      });
      socket.once('error', reject);
    });
  t.equal(await served({}), 'ec', 'a current client gets ECDSA');
  t.equal(await served({ sigalgs: 'rsa_pss_rsae_sha256:rsa_pkcs1_sha256' }), 'rsa', 'a client that knows only RSA gets RSA');
  t.equal(await served({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), 'rsa', 'an RSA-only TLS 1.2 cipher gets RSA');
});
