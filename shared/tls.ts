// The TLS certificate for SMTP: the configured pair, or a self-signed one made in the data dir on first start.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.js';

export interface TlsFiles {
  certPath: string;
  keyPath: string;
  selfSigned: boolean;
}

export async function ensureTlsCertificate(config: Config): Promise<TlsFiles> {
  if (config.tls.cert && config.tls.key) return { certPath: config.tls.cert, keyPath: config.tls.key, selfSigned: false };
  const dir = join(config.dataDir, 'tls');
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) return { certPath, keyPath, selfSigned: true };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const host = config.publicHostname;
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }, { type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });
  // Key first, then the certificate, each renamed into place: a reader never sees a half-written pair.
  writeFileSync(`${keyPath}.tmp`, pems.private, { mode: 0o600 });
  renameSync(`${keyPath}.tmp`, keyPath);
  writeFileSync(`${certPath}.tmp`, pems.cert, { mode: 0o644 });
  renameSync(`${certPath}.tmp`, certPath);
  return { certPath, keyPath, selfSigned: true };
}

export const readTls = (files: TlsFiles): { cert: Buffer; key: Buffer } => ({ cert: readFileSync(files.certPath), key: readFileSync(files.keyPath) });
