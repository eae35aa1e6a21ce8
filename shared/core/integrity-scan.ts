// The integrity scan of Tern's own installed files (tern-auth/v1 /security-scan-settings, operators only): every
// file under the roots the build's manifest covers (dist/integrity-manifest.json, scripts/integrity-manifest.mjs)
// hashed and compared with it: modified, missing and unexpected files, less the paths operators ignore. Turned on
// by an operator (register), it may run daily, and then mails the operators when its findings change. view-file
// shows a file of the installation, never anything outside the covered roots, never a key or an env file, at most
// VIEW_MAX_BYTES.
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { SCAN_OFF, sameFindings, type ScanFindings, type ScanResult, type ScanState } from '../domain/integrity.js';
import type { Operator } from '../domain/user.js';
import type { Store } from '../store/index.js';
import type { Logger } from '../log.js';
import { projectPath } from '../paths.js';
import { auditEntry, type AuditedChange } from './audit-log.js';
import { done, refuse, type Managed } from './management-refusals.js';
import type { SystemMail } from './system-mail.js';

interface Manifest {
  builtAt: string;
  roots: string[];
  files: Record<string, string>;
}

export interface ScanSettings extends ScanState {
  ignores: string[];
  manifestBuiltAt: string | null;
  filesCovered: number;
}

const DAY_MS = 86_400_000;
export const VIEW_MAX_BYTES = 2 * 1024 * 1024;
/** Never shown by view-file, wherever they are: keys, certificates' private parts, env files. */
const SECRET_NAMES = /(^|\/)(\.env[^/]*|[^/]*\.(pem|key|p12|pfx)|id_[a-z0-9]+)$/i;

export class IntegrityScan {
  constructor(
    private readonly d: { store: Store; mail: SystemMail },
    /** The installation's root (the tests point it at a copy). */
    private readonly root: string = projectPath(),
  ) {}

  async settings(): Promise<ScanSettings> {
    const [state, ignores] = await Promise.all([this.d.store.integrity.state(), this.d.store.integrity.ignores()]);
    const manifest = this.manifest();
    return { ...(state ?? SCAN_OFF), ignores, manifestBuiltAt: manifest?.builtAt ?? null, filesCovered: manifest ? Object.keys(manifest.files).length : 0 };
  }

  /** Turns the scan on (daily, the first run a day from now) and runs it once. */
  async register(operator: Operator, log: Logger): Promise<Managed<ScanSettings>> {
    if (!this.manifest())
      return refuse({ kind: 'invalid_field', field: 'manifest', message: 'This installation has no integrity manifest: build it with npm run build.' });
    const at = new Date().toISOString();
    const settings = { registeredAt: at, daily: true, nextScanAt: new Date(Date.now() + DAY_MS).toISOString() };
    await this.d.store.integrity.putSettings(settings, at, this.audit(operator, { action: 'integrity.register', before: null, after: settings }, at));
    await this.scan(log);
    return done(await this.settings());
  }

  /** Turns the scan off and forgets its last result (FluentAuth's reset-api). */
  async reset(operator: Operator): Promise<ScanSettings> {
    const at = new Date().toISOString();
    await this.d.store.integrity.putSettings(
      { registeredAt: null, daily: false, nextScanAt: null },
      at,
      this.audit(operator, { action: 'integrity.reset', before: null, after: null }, at),
      true,
    );
    return this.settings();
  }

  async schedule(operator: Operator, daily: boolean): Promise<Managed<ScanSettings>> {
    const state = await this.d.store.integrity.state();
    if (!state?.registeredAt) return notRegistered();
    const at = new Date().toISOString();
    const settings = { registeredAt: state.registeredAt, daily, nextScanAt: daily ? new Date(Date.now() + DAY_MS).toISOString() : null };
    await this.d.store.integrity.putSettings(settings, at, this.audit(operator, { action: 'integrity.schedule', before: { daily: state.daily }, after: { daily } }, at));
    return done(await this.settings());
  }

  /** Scans now (the scan must be on) and stores the result. */
  async scanNow(log: Logger): Promise<Managed<ScanResult>> {
    const state = await this.d.store.integrity.state();
    if (!state?.registeredAt) return notRegistered();
    return done(await this.scan(log));
  }

  async toggleIgnore(operator: Operator, path: string): Promise<Managed<{ path: string; ignored: boolean }>> {
    const clean = coveredPath(path);
    if (clean === undefined) return badPath();
    const at = new Date().toISOString();
    const ignored = await this.d.store.integrity.toggleIgnore(clean, at, (now) =>
      this.audit(operator, { action: now ? 'integrity.ignore' : 'integrity.unignore', before: null, after: { path: clean } }, at),
    );
    return done({ path: clean, ignored });
  }

  async resetIgnores(operator: Operator): Promise<number> {
    const at = new Date().toISOString();
    return this.d.store.integrity.clearIgnores((count) =>
      this.audit(operator, { action: 'integrity.reset_ignores', before: { ignored: count }, after: { ignored: 0 }, reason: '' }, at),
    );
  }

  /** A file of the installation under a covered root, as text; never a secret's name, never over VIEW_MAX_BYTES. */
  async viewFile(path: string): Promise<Managed<{ path: string; size: number; content: string }>> {
    const manifest = this.manifest();
    const clean = coveredPath(path);
    if (clean === undefined || !manifest || !manifest.roots.some((r) => clean === r || clean.startsWith(`${r}/`)) || SECRET_NAMES.test(clean)) return badPath();
    const full = join(this.root, clean);
    const stat = existsSync(full) ? statSync(full) : undefined;
    if (!stat?.isFile()) return refuse({ kind: 'invalid_field', field: 'path', message: `${clean} is not a file of this installation` });
    const size = stat.size;
    if (size > VIEW_MAX_BYTES) return refuse({ kind: 'invalid_field', field: 'path', message: `${clean} is larger than ${VIEW_MAX_BYTES} bytes: not shown` });
    return done({ path: clean, size, content: await readFile(full, 'utf8') });
  }

  /** The daily run, claimed by one API process; mails the operators when the findings changed. */
  async daily(log: Logger): Promise<void> {
    const now = new Date();
    if (!(await this.d.store.integrity.claimDaily(now.toISOString(), new Date(now.getTime() + DAY_MS).toISOString()))) return;
    const before = (await this.d.store.integrity.state())?.last ?? null;
    const result = await this.scan(log);
    if (!sameFindings(before, result)) await this.mailOperators(result, log);
  }

  private async scan(log: Logger): Promise<ScanResult> {
    const manifest = this.manifest();
    const ignores = new Set(await this.d.store.integrity.ignores());
    const found = manifest ? findings(this.root, manifest) : { modified: [], missing: [], unexpected: [] };
    const kept = (paths: string[]) => paths.filter((p) => !ignores.has(p));
    const all = [...found.modified, ...found.missing, ...found.unexpected];
    const result: ScanResult = {
      scannedAt: new Date().toISOString(),
      manifestBuiltAt: manifest?.builtAt ?? '',
      modified: kept(found.modified),
      missing: kept(found.missing),
      unexpected: kept(found.unexpected),
      ignored: all.filter((p) => ignores.has(p)).sort(),
    };
    await this.d.store.integrity.recordResult(result);
    log.info({ modified: result.modified.length, missing: result.missing.length, unexpected: result.unexpected.length }, 'integrity scan');
    return result;
  }

  private async mailOperators(r: ScanResult, log: Logger): Promise<void> {
    const lines = [...r.modified.map((p) => `modified: ${p}`), ...r.missing.map((p) => `missing: ${p}`), ...r.unexpected.map((p) => `unexpected: ${p}`)];
    const text = lines.length ? lines.join('\n') : 'Every file matches the manifest again.';
    for (const operator of await this.d.store.users.listOperators()) {
      const subject = lines.length ? `Tern: ${lines.length} installed file(s) differ from the build` : 'Tern: the installed files match the build again';
      const html = `<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>`;
      const sent = await this.d.mail.send({ to: operator.email, subject, text: `${text}\n`, html }, log);
      if (!sent.ok) log.warn({ operator: operator.id, refusal: sent.refusal.kind }, 'integrity scan mail not sent');
    }
  }

  private manifest(): Manifest | undefined {
    try {
      return JSON.parse(readFileSync(join(this.root, 'dist', 'integrity-manifest.json'), 'utf8')) as Manifest;
    } catch {
      return undefined;
    }
  }

  private audit(operator: Operator, c: Omit<AuditedChange, 'target' | 'reason'> & { reason?: string }, at: string) {
    return auditEntry(operator, { target: { kind: 'platform', id: 'integrity_scan' }, reason: '', ...c }, at);
  }
}

const notRegistered = <T>(): Managed<T> =>
  refuse({ kind: 'invalid_field', field: 'scan', message: 'The integrity scan is off: turn it on first (POST /security-scan-settings/register).' });
const badPath = <T>(): Managed<T> =>
  refuse({ kind: 'invalid_field', field: 'path', message: 'path must be a file of the installation under the roots the scan covers, and not a key or env file' });

/** A path relative to the installation's root, normalised, never leaving it; undefined when it would. */
function coveredPath(path: string): string | undefined {
  if (path === '' || path.length > 1000 || /\p{Cc}/u.test(path) || path.startsWith('/') || path.includes('\\')) return undefined;
  const clean = normalize(path).split(sep).join('/');
  return clean.startsWith('..') || clean === '.' ? undefined : clean;
}

function* filesUnder(root: string, path: string): Generator<string> {
  const full = join(root, path);
  if (!existsSync(full)) return;
  if (statSync(full).isFile()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const inner = `${path}/${entry.name}`;
    if (entry.isDirectory()) yield* filesUnder(root, inner);
    else if (entry.isFile()) yield inner;
  }
}

const sha256OfFile = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

function findings(root: string, manifest: Manifest): ScanFindings {
  const seen = new Set<string>();
  const modified: string[] = [];
  const unexpected: string[] = [];
  for (const r of manifest.roots) {
    for (const file of filesUnder(root, r)) {
      // `file` is already relative to the root and joined with `/` (filesUnder builds it so), as the manifest's keys are.
      seen.add(file);
      const expected = manifest.files[file];
      if (expected === undefined) unexpected.push(file);
      else if (sha256OfFile(join(root, file)) !== expected) modified.push(file);
    }
  }
  const missing = Object.keys(manifest.files).filter((f) => !seen.has(f));
  return { modified: modified.sort(), missing: missing.sort(), unexpected: unexpected.sort() };
}
