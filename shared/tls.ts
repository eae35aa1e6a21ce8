// The TLS certificate for SMTP: the configured pair, or a self-signed one made in the data dir on first start.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.js';
import { selfSignedTlsDir, tlsPairIn } from './data-dir.js';

export interface TlsFiles {
  certPath: string;
  keyPath: string;
  selfSigned: boolean;
}

export async function ensureTlsCertificate(config: Config): Promise<TlsFiles> {
  if (config.tls.cert && config.tls.key) return { certPath: config.tls.cert, keyPath: config.tls.key, selfSigned: false };
  const dir = selfSignedTlsDir(config.dataDir);
  const { cert: certPath, key: keyPath } = tlsPairIn(dir);
  if (existsSync(certPath) && existsSync(keyPath)) return { certPath, keyPath, selfSigned: true };
  const host = config.publicHostname;
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 825 * 86_400_000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: host },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  // The pair is written in a directory of its own, then that directory is renamed into place: a reader
  // never sees half a pair, and two processes starting at once cannot end with one's key and the other's
  // certificate (the second rename fails because the first one's directory is there).
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(join(config.dataDir, '.tls-'));
  try {
    const staged = tlsPairIn(staging);
    writeFileSync(staged.key, pems.private, { mode: 0o600 });
    writeFileSync(staged.cert, pems.cert, { mode: 0o644 });
    chmodSync(staging, 0o700);
    try {
      renameSync(staging, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      if (!existsSync(certPath) || !existsSync(keyPath)) {
        throw new Error(`${dir} exists but does not hold cert.pem and key.pem; remove it to have a new pair made, or set TERNMAIL_TLS_CERT and TERNMAIL_TLS_KEY`, {
          cause: err,
        });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { certPath, keyPath, selfSigned: true };
}

export const readTls = (files: TlsFiles): { cert: Buffer; key: Buffer } => ({ cert: readFileSync(files.certPath), key: readFileSync(files.keyPath) });
