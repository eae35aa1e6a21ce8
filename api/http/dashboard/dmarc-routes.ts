// GET /api/domains/{domain_hash}/dmarc: the domain's DMARC record as receivers find it, its tags, whether Tern's
// mail for the domain aligns under it, and the record to publish next (core.dmarc, rate-limited per domain).
// Translation only.
import { Type } from '@sinclair/typebox';
import { endpoint, IDENTIFIER, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import type { DmarcReport } from '../../../shared/core/dmarc/check.js';
import type { DmarcRecord } from '../../../shared/core/dmarc/record.js';

type Route = DashboardRoute<DashboardCaller>;

/** The record's tags as read, without their written form (the suggestion is written from it). */
const recordView = (r: DmarcRecord) => ({ p: r.p, sp: r.sp, pct: r.pct, rua: r.rua, ruf: r.ruf, adkim: r.adkim, aspf: r.aspf, fo: r.fo });

/** The report as the route answers it: the record's tags without their written form, snake_case names. */
function dmarcView(r: DmarcReport) {
  const d = r.discovery;
  const record = d.status === 'valid' ? recordView(d.record) : null;
  return {
    id: r.domain.id,
    domain_name: r.domain.name,
    status: d.status,
    record_name: d.name,
    inherited: r.inherited,
    found: d.found,
    ...(d.status === 'invalid' ? { problems: d.problems } : {}),
    ...(d.status === 'lookup_failed' ? { error: d.error } : {}),
    record,
    policy: r.policy,
    alignment: { dkim: r.dkim, return_path: r.returnPath, passes: r.passes },
    suggestion: r.suggestion,
  };
}

const dmarc: Route = {
  namespace: 'tern/v2',
  path: '/api/domains/{domain_hash}/dmarc',
  vars: { domain_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "Reads the domain's DMARC record now (rate-limited per domain): its tags, alignment of DKIM and return path, a suggested record",
      args: Type.Object({ domain_hash: Type.String({ description: 'The id of the domain (as /v2/domains gives it).', pattern: `^${IDENTIFIER}$` }) }),
      async handle({ ctx, user, params }) {
        return { body: dmarcView(valueOf(await ctx.core.dmarc.check(signedIn(user).acting, params.domain_hash))) };
      },
    }),
  ],
};

export const dmarcRoutes: readonly Route[] = [dmarc];
