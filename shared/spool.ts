// The message spool: one file per message body. A body is acknowledged only after it is written to a
// temporary file, fsync'd, renamed into place and its directory fsync'd, so a crash or power loss at
// any point leaves either no file or the whole file.
import { createReadStream, mkdirSync, type ReadStream } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export class Spool {
  private readonly madeDirs = new Set<string>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
  }

  /** Spool files are spread over 256 sub-directories by the id's last two characters. */
  path(id: string): string {
    return join(this.dir, id.slice(-2), `${id}.eml`);
  }

  async write(id: string, body: Buffer): Promise<void> {
    const target = this.path(id);
    const folder = join(target, '..');
    if (!this.madeDirs.has(folder)) {
      mkdirSync(folder, { recursive: true, mode: 0o750 });
      this.madeDirs.add(folder);
    }
    const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    const file = await open(temp, 'wx', 0o640);
    try {
      await file.writeFile(body);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, target);
    await fsyncDir(folder);
  }

  read(id: string): Promise<Buffer> {
    return readFile(this.path(id));
  }

  stream(id: string): ReadStream {
    return createReadStream(this.path(id));
  }

  async remove(id: string): Promise<void> {
    await rm(this.path(id), { force: true });
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
