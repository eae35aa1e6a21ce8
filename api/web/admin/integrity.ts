// The integrity scan of Tern's installed files on the operators' pages (/admin/integrity): on or off, the last
// findings with a button to ignore (or stop ignoring) each path, scanning now, the daily schedule. The same core use
// cases as the REST routes (core.integrityScan); each change is in the audit log.
import type { ScanSettings } from '../../../shared/core/integrity-scan.js';
import type { ScanResult } from '../../../shared/domain/integrity.js';
import { html, type Html } from '../html.js';
import { pageErrorFor } from '../errors.js';
import { operatorPage, type PageCall } from '../page.js';
import { actionButton, doneAt, noticeOf, table, when } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { OperatorViewer } from '../viewer.js';

const PATH = '/admin/integrity';
const NOTICES = {
  on: 'The integrity scan is on, and has run once.',
  off: 'The integrity scan is off.',
  scanned: 'Scanned just now.',
  ignored: 'The path is ignored in the findings.',
  unignored: 'The path is reported again.',
  schedule: 'The schedule is saved.',
};

function findingRows(v: OperatorViewer, r: ScanResult): Html[] {
  const row = (kind: string, path: string, ignored: boolean) =>
    html`<tr>
      <th scope="row"><code>${path}</code></th>
      <td>${kind}</td>
      <td>${actionButton(v, `${PATH}/ignore`, ignored ? 'Report again' : 'Ignore', { fields: { path } })}</td>
    </tr>`;
  return [
    ...r.modified.map((p) => row('modified', p, false)),
    ...r.missing.map((p) => row('missing', p, false)),
    ...r.unexpected.map((p) => row('unexpected', p, false)),
    ...r.ignored.map((p) => row('ignored', p, true)),
  ];
}

function onPart(v: OperatorViewer, s: ScanSettings): Html {
  const last = s.last;
  return html`<p id="scan-status">
      On since ${when(s.registeredAt)}; ${s.daily ? html`daily, next ${when(s.nextScanAt)}` : 'only when asked'}. The manifest of ${s.filesCovered} files was written
      ${when(s.manifestBuiltAt)}.
    </p>
    ${actionButton(v, `${PATH}/scan`, 'Scan now', { id: 'scan-now' })}
    ${actionButton(v, `${PATH}/schedule`, s.daily ? 'Scan only when asked' : 'Scan daily', { id: 'toggle-daily' })}
    ${actionButton(v, `${PATH}/off`, 'Turn the scan off', { confirm: 'Turn the integrity scan off?', danger: true, id: 'scan-off' })}
    <h2>Findings${last ? html` of ${when(last.scannedAt)}` : undefined}</h2>
    ${last ? table('Files that differ from the build', ['File', 'Finding', 'Action'], findingRows(v, last), 'Every file matches the manifest.') : undefined}`;
}

async function scanPage({ ctx, r, viewer }: PageCall<OperatorViewer>): Promise<PageReply> {
  const s = await ctx.core.integrityScan.settings();
  const body = html`${noticeOf(r, NOTICES)}
    <p class="hint">Every file Tern ships, checked against the checksums written when it was built.</p>
    ${s.registeredAt === null ? actionButton(viewer, `${PATH}/on`, 'Turn the scan on', { id: 'scan-on' }) : onPart(viewer, s)}`;
  return { kind: 'page', title: 'Integrity', body };
}

const done = (code: keyof typeof NOTICES): PageReply => ({ kind: 'redirect', status: 303, location: doneAt(PATH, code) });

async function turnOn({ ctx, viewer, log }: PageCall<OperatorViewer>): Promise<PageReply> {
  const on = await ctx.core.integrityScan.register(viewer.user, log);
  if (!on.ok) throw pageErrorFor(on.refusal);
  return done('on');
}

async function turnOff({ ctx, viewer }: PageCall<OperatorViewer>): Promise<PageReply> {
  await ctx.core.integrityScan.reset(viewer.user);
  return done('off');
}

async function scanNow({ ctx, log }: PageCall<OperatorViewer>): Promise<PageReply> {
  const scanned = await ctx.core.integrityScan.scanNow(log);
  if (!scanned.ok) throw pageErrorFor(scanned.refusal);
  return done('scanned');
}

async function toggleDaily({ ctx, viewer }: PageCall<OperatorViewer>): Promise<PageReply> {
  const daily = !(await ctx.core.integrityScan.settings()).daily;
  const set = await ctx.core.integrityScan.schedule(viewer.user, daily);
  if (!set.ok) throw pageErrorFor(set.refusal);
  return done('schedule');
}

async function toggleIgnore({ ctx, form, viewer }: PageCall<OperatorViewer>): Promise<PageReply> {
  const toggled = await ctx.core.integrityScan.toggleIgnore(viewer.user, form.get('path') ?? '');
  if (!toggled.ok) throw pageErrorFor(toggled.refusal);
  return done(toggled.value.ignored ? 'ignored' : 'unignored');
}

const post = (path: string, handle: (call: PageCall<OperatorViewer>) => Promise<PageReply>) =>
  operatorPage({ method: 'POST', path: `${PATH}${path}`, title: 'Integrity', section: PATH, handle });

export const INTEGRITY_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: 'Integrity', handle: scanPage }),
  post('/on', turnOn),
  post('/off', turnOff),
  post('/scan', scanNow),
  post('/schedule', toggleDaily),
  post('/ignore', toggleIgnore),
];
