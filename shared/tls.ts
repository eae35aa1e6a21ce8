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
  /**
   * A self-signed installation's second pair, ECDSA P-256, served beside the RSA one: OpenSSL answers each client
   * with the one its signature algorithms name first (every current client takes ECDSA, whose handshake signature
   * costs the MTA about a fifteenth of RSA-2048's; an old client that knows only RSA still gets RSA). Null for a
   * configured pair, which is served as given (certbot has issued ECDSA certificates by default since 2.0).
   */
  ec: { certPath: string; keyPath: string } | null;
}

/** The key and certificate options a TLS server takes: one pair, or the RSA and the ECDSA pair. */
export interface TlsPairs {
  cert: Buffer[];
  key: Buffer[];
}

type Pems = { private: string; cert: string };

/** The self-signed certificate's names and lifetime, for a key of either kind. */
function selfSignedOptions(config: Config, kind: 'rsa' | 'ec'): Parameters<typeof generate>[1] {
  const host = config.publicHostname;
  return {
    ...(kind === 'rsa' ? { keySize: 2048 } : { keyType: 'ec', curve: 'P-256' }),
    algorithm: 'sha256',
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
  };
}

export async function ensureTlsCertificate(config: Config): Promise<TlsFiles> {
  if (config.tls.cert && config.tls.key) return { certPath: config.tls.cert, keyPath: config.tls.key, selfSigned: false, ec: null };
  const dir = selfSignedTlsDir(config.dataDir);
  const names = [{ name: 'commonName', value: config.publicHostname }];
  const rsa = await ensurePair(config, dir, () => generate(names, selfSignedOptions(config, 'rsa')));
  // An installation made before the ECDSA pair existed gets it on its next start, beside the RSA pair it keeps.
  const ec = await ensurePair(config, join(dir, 'ec'), () => generate(names, selfSignedOptions(config, 'ec')));
  return { certPath: rsa.cert, keyPath: rsa.key, selfSigned: true, ec: { certPath: ec.cert, keyPath: ec.key } };
}

/**
 * The pair in `dir`, made there first if it is not. The pair is written in a directory of its own, then that
 * directory is renamed into place: a reader never sees half a pair, and two processes starting at once cannot end
 * with one's key and the other's certificate (the second rename fails because the first one's directory is there).
 */
async function ensurePair(config: Config, dir: string, make: () => Promise<Pems>): Promise<{ cert: string; key: string }> {
  const pair = tlsPairIn(dir);
  if (existsSync(pair.cert) && existsSync(pair.key)) return pair;
  const pems = await make();
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
      if (!existsSync(pair.cert) || !existsSync(pair.key)) {
        throw new Error(`${dir} exists but does not hold cert.pem and key.pem; remove it to have a new pair made, or set TERNMAIL_TLS_CERT and TERNMAIL_TLS_KEY`, {
          cause: err,
        });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return pair;
}

/** The pairs to serve, the RSA (or configured) one first. */
export const readTls = (files: TlsFiles): TlsPairs => ({
  cert: [readFileSync(files.certPath), ...(files.ec ? [readFileSync(files.ec.certPath)] : [])],
  key: [readFileSync(files.keyPath), ...(files.ec ? [readFileSync(files.ec.keyPath)] : [])],
});
