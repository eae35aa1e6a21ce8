// The integrity scan of Tern's installed files (tern-auth/v1 /security-scan-settings, FluentAuth's names), for
// operators: its state, turning it on (register) or off (reset-api), scanning now, a file's content, ignoring a
// path, the daily schedule. Translation only: core/integrity-scan.ts decides.
import { Type } from '@sinclair/typebox';
import { endpoint, type AnyEndpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import type { ScanSettings } from '../../../shared/core/integrity-scan.js';
import type { ScanResult } from '../../../shared/domain/integrity.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'tern-auth/v1';
const BASE = '/security-scan-settings';

const resultView = (r: ScanResult) => ({
  scanned_at: r.scannedAt,
  manifest_built_at: r.manifestBuiltAt,
  modified: r.modified,
  missing: r.missing,
  unexpected: r.unexpected,
  ignored: r.ignored,
  clean: r.modified.length + r.missing.length + r.unexpected.length === 0,
});

const settingsView = (s: ScanSettings) => ({
  status: s.registeredAt === null ? 'off' : 'on',
  registered_at: s.registeredAt,
  daily: s.daily,
  next_scan_at: s.nextScanAt,
  manifest_built_at: s.manifestBuiltAt,
  files_covered: s.filesCovered,
  ignores: s.ignores,
  last_scan: s.last && resultView(s.last),
});

const at = (path: string, e: AnyEndpoint<DashboardCaller>): Route => ({ namespace: NAMESPACE, path: `${BASE}${path}`, endpoints: [e] });

const pathArg = Type.String({ minLength: 1, maxLength: 1000, description: 'A file, relative to the installation’s root (e.g. dist/shared/config.js).' });

export const integrityRoutes: readonly Route[] = [
  at(
    '',
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The integrity scan: on or off, daily or not, the manifest, the ignored paths and the last findings (operators)',
      args: Type.Object({}),
      handle: async ({ ctx, user }) => {
        operatorOf(user);
        return { body: settingsView(await ctx.core.integrityScan.settings()) };
      },
    }),
  ),
  at(
    '/register',
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Turns the scan on (daily) and runs it once (operators; audited)',
      args: Type.Object({}),
      handle: async ({ ctx, user, log }) => {
        const { user: operator } = operatorOf(user);
        return { body: settingsView(valueOf(await ctx.core.integrityScan.register(operator, log))) };
      },
    }),
  ),
  at(
    '/scan',
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: "Scans now: the installation's files against the build's manifest, less the ignored paths (operators)",
      args: Type.Object({}),
      handle: async ({ ctx, user, log }) => {
        operatorOf(user);
        return { body: resultView(valueOf(await ctx.core.integrityScan.scanNow(log))) };
      },
    }),
  ),
  at(
    '/scan/view-file',
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'One file of the installation under a covered root, as text, at most 2 MB; never a key or env file (operators)',
      args: Type.Object({ path: pathArg }),
      handle: async ({ ctx, user, params }) => {
        operatorOf(user);
        return { body: valueOf(await ctx.core.integrityScan.viewFile(params.path)) };
      },
    }),
  ),
  at(
    '/scan/toggle-ignore',
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Ignores a path in the findings, or stops ignoring it (operators; audited)',
      args: Type.Object({ path: pathArg }),
      handle: async ({ ctx, user, params }) => {
        const { user: operator } = operatorOf(user);
        return { body: valueOf(await ctx.core.integrityScan.toggleIgnore(operator, params.path)) };
      },
    }),
  ),
  at(
    '/scan/update-schedule-scan',
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Runs the scan daily (mailing the operators when its findings change) or only when asked (operators; audited)',
      args: Type.Object({ daily: Type.Boolean({ description: 'true: every day.' }) }),
      handle: async ({ ctx, user, params }) => {
        const { user: operator } = operatorOf(user);
        return { body: settingsView(valueOf(await ctx.core.integrityScan.schedule(operator, params.daily))) };
      },
    }),
  ),
  at(
    '/scan/reset-api',
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Turns the scan off and forgets its last findings (operators; audited)',
      args: Type.Object({}),
      handle: async ({ ctx, user }) => {
        const { user: operator } = operatorOf(user);
        return { body: settingsView(await ctx.core.integrityScan.reset(operator)) };
      },
    }),
  ),
  at(
    '/scan/reset-ignores',
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Stops ignoring every path (operators; audited)',
      args: Type.Object({}),
      handle: async ({ ctx, user }) => {
        const { user: operator } = operatorOf(user);
        return { body: { cleared: await ctx.core.integrityScan.resetIgnores(operator) } };
      },
    }),
  ),
];
