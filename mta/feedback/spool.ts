// A file spool, one file per body: the reports received on the MX port (outgoing message bodies are kept
// in the store, see docs/decisions.md). A body is written and fsync'd, and its directory fsync'd, before
// its row is committed; only a committed row ever leads to a spool file being read, so a file cut short by
// a crash is never read (it is an orphan, like a body whose row was never written).
import { closeSync, fsync, mkdirSync, openSync, readFile, unlink, writeFile } from 'node:fs';
import { dirname, join } from 'node:path';

export class Spool {
  /** One open descriptor per sub-directory, to fsync it after each new file without reopening it. */
  private readonly folders = new Map<string, number>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
  }

  /** Spool files are spread over 256 sub-directories by the id's last two characters. */
  path(id: string): string {
    return join(this.dir, id.slice(-2), `${id}.eml`);
  }

  async write(id: string, body: Buffer): Promise<void> {
    const target = this.path(id);
    const folder = this.folder(dirname(target));
    // The callback API, not FileHandle: one call opens, writes, fsyncs (flush) and closes, at a fraction of the cost.
    // (The callback API throughout this file, for the same reason.)
    await new Promise<void>((resolve, reject) => writeFile(target, body, { flag: 'wx', mode: 0o640, flush: true }, (err) => (err ? reject(err) : resolve())));
    await new Promise<void>((resolve, reject) => fsync(folder, (err) => (err ? reject(err) : resolve())));
  }

  read(id: string): Promise<Buffer> {
    return new Promise((resolve, reject) => readFile(this.path(id), (err, body) => (err ? reject(err) : resolve(body))));
  }

  /** Removes a body; one already gone is fine. */
  remove(id: string): Promise<void> {
    return new Promise((resolve, reject) => unlink(this.path(id), (err) => (err && err.code !== 'ENOENT' ? reject(err) : resolve())));
  }

  close(): void {
    for (const fd of this.folders.values()) closeSync(fd);
    this.folders.clear();
  }

  private folder(path: string): number {
    let fd = this.folders.get(path);
    if (fd === undefined) {
      mkdirSync(path, { recursive: true, mode: 0o750 });
      fd = openSync(path, 'r');
      this.folders.set(path, fd);
    }
    return fd;
  }
}
