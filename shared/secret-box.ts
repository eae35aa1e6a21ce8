// Encryption at rest for secrets the product must read back (webhook secrets, DKIM private keys):
// AES-256-GCM under a master key kept in the data dir with mode 0600.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { masterKeyFile } from './data-dir.js';

const VERSION = 'v1';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  /** A key for another purpose (VERP MACs, …), derived so the master key itself is never used twice. */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `tern:${purpose}`, 32));
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split(':');
    if (version !== VERSION || !payload) throw new Error('unknown secret format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * Reads the master key, creating it on first start. The key is written and fsync'd under a name of its
 * own, then hard-linked into place: the link fails if another process got there first, and a process
 * never reads a key file that is still being written (creating it with `wx` and then writing did allow
 * that, when the API and the MTA started together on a fresh data dir).
 */
export function loadSecretBox(dataDir: string): SecretBox {
  const file = masterKeyFile(dataDir);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) createKeyFile(dir, file);
  return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
}

function createKeyFile(dir: string, file: string): void {
  const temp = join(dir, `.master.key.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, randomBytes(32).toString('base64'), { mode: 0o600, flush: true });
  try {
    linkSync(temp, file);
    fsyncDir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
