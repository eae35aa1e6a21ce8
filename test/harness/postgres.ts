// A throwaway PostgreSQL cluster for one test file or benchmark: its own temp dir, a free loopback port, trust
// authentication, removed at the end. Each caller gets a fresh database, copied from a template prepared once.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

export interface TestPostgres {
  /** The superuser's URL of the cluster's `postgres` database. */
  adminUrl: string;
  port: number;
  /** A new, empty database (a copy of the prepared template), as a postgres:// URL. */
  createDatabase(): Promise<string>;
  /** Drops a database made by createDatabase, closing whatever connections are still open on it. */
  dropDatabase(url: string): Promise<void>;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Run once on the template database before the first copy (e.g. migrating it), so each copy starts ready. */
  prepareTemplate?: (url: string) => Promise<void>;
  /** Keeps PostgreSQL's defaults for durability (fsync, synchronous commits, full page writes): what benchmarks measure. */
  durable?: boolean;
}

const ROOT = '/usr/lib/postgresql';
const TEMPLATE = 'tern_template';

/** The bin directory of the newest PostgreSQL server installed by Debian's packages, or a clear error. */
function serverBin(): string {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) {
    throw new Error(`no PostgreSQL server found (${ROOT}/<version>/bin/initdb): install the postgresql package (apt-get install postgresql; .ci/run does it)`);
  }
  return join(ROOT, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user, which owns the dir. */
const asRoot = process.getuid?.() === 0;

function owner(dir: string): void {
  if (!asRoot) return;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, id('-u'), id('-g'));
}

function runServerCommand(bin: string, command: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

/** Clusters a test file started and has not stopped: stopped when the file's process exits, however it exits. */
const running = new Map<string, () => void>();
process.on('exit', () => {
  for (const stop of running.values()) {
    try {
      stop();
    } catch {
      // Exiting anyway: the next cluster is on another port and dir; nothing waits for this one.
    }
  }
});

/**
 * Starts a cluster. Unless `durable`, fsync, synchronous_commit and full_page_writes are off: a test's data need
 * not survive a crash of the machine, and they make commits and database copies much cheaper. Never use these
 * settings for data that matters.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  const bin = serverBin();
  const dir = mkdtempSync(join(tmpdir(), 'tern-pg-'));
  owner(dir);
  const data = join(dir, 'data');
  // The C locale orders text by bytes, as SQLite does.
  runServerCommand(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-locale', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const volatile = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${volatile}`;
  runServerCommand(bin, 'pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', settings, 'start']);
  const stopNow = () => {
    running.delete(dir);
    try {
      runServerCommand(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  running.set(dir, stopNow);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const databases = new Databases(adminUrl, port, options.prepareTemplate);
  return {
    adminUrl,
    port,
    createDatabase: () => databases.create(),
    dropDatabase: (url) => databases.drop(url),
    async stop() {
      await databases.close();
      stopNow();
    },
  };
}

/** The copies of the template: made one at a time (a template being copied must have no other session). */
class Databases {
  private admin: Promise<pg.Client> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private made = 0;

  constructor(
    private readonly adminUrl: string,
    private readonly port: number,
    private readonly prepare: PostgresOptions['prepareTemplate'],
  ) {}

  private url(name: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /** The admin connection, made (with the template) by the first call; every later call waits for the same one. */
  private client(): Promise<pg.Client> {
    this.admin ??= (async () => {
      const admin = new pg.Client({ connectionString: this.adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${TEMPLATE}`);
      // prepareTemplate closes its own connections before the first copy is made.
      if (this.prepare) await this.prepare(this.url(TEMPLATE));
      return admin;
    })();
    return this.admin;
  }

  create(): Promise<string> {
    const next = this.queue.then(async () => {
      const name = `tern_${++this.made}`;
      await (await this.client()).query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
      return this.url(name);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  async drop(url: string): Promise<void> {
    const name = new URL(url).pathname.slice(1);
    if (!/^tern_\d+$/.test(name)) throw new Error(`${url} is no database of this cluster's createDatabase`);
    await (await this.client()).query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }

  async close(): Promise<void> {
    await this.queue;
    const admin = await this.admin?.catch(() => undefined);
    await admin?.end().catch(() => undefined);
  }
}
