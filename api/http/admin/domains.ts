// /v2/domains: add a domain (its DKIM key and DNS records are generated), list, read, remove.
// Verification is automatic (mta/verify-domains); nothing here performs a DNS lookup.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../pipeline/route.js';
import { DataOf, IsoDateTime, ListEnvelope, PageQuery, DisplayDateTime, StringIdParams } from '../schemas/common.js';
import { toDisplayDateTime } from '../../../shared/time.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import type { Team } from '../../../shared/domain/team.js';
import type { AppContext } from '../../pipeline/context.js';
import { envelope, pageFrom } from '../../pipeline/paging.js';
import { valueOf } from './refusal-errors.js';

const DnsRecord = Type.Object({
  type: Type.String(),
  name: Type.String(),
  content: Type.String(),
  TTL: Type.String(),
  priority: Type.String(),
});

export const DomainListItem = Type.Object({
  id: Type.String(),
  domain_name: Type.String(),
  verification_status: Type.Union([Type.Literal('draft'), Type.Literal('verified')]),
  is_default: Type.Boolean(),
  backend_region: Type.String(),
  total_sent: Type.Integer(),
  total_bounced: Type.Integer(),
  total_complained: Type.Integer(),
  updated_at: IsoDateTime,
});

const DomainCreated = Type.Object({
  id: Type.String(),
  domain_name: Type.String(),
  verification_status: Type.Literal('draft'),
  created_at: DisplayDateTime,
});

const DomainDetail = Type.Object({
  id: Type.String(),
  domain_name: Type.String(),
  verification_status: Type.Union([Type.Literal('draft'), Type.Literal('verified')]),
  created_at: DisplayDateTime,
  dmarc_policy: Type.Union([Type.String(), Type.Null()]),
  dns_records: Type.Union([Type.Object({ dkim: DnsRecord, spf: Type.Array(DnsRecord) }), Type.Null()]),
  /** Why dns_records is null: the server's public host name is not a public name yet. */
  dns_records_unavailable: Type.Union([Type.String(), Type.Null()]),
  auto_verification: Type.Object({ active: Type.Boolean(), reason: Type.String() }),
  last_checked_at: Type.Union([IsoDateTime, Type.Null()]),
});

export const domainListItem = (d: Domain, team: Team) => ({
  id: d.id,
  domain_name: d.name,
  verification_status: d.verificationStatus,
  is_default: d.isDefault,
  backend_region: team.backendRegion,
  total_sent: d.totalSent,
  total_bounced: d.totalBounced,
  total_complained: d.totalComplained,
  updated_at: d.updatedAt,
});

export const domainDetail = (d: Domain, ctx: AppContext) => ({
  id: d.id,
  domain_name: d.name,
  verification_status: d.verificationStatus,
  created_at: toDisplayDateTime(d.createdAt),
  dmarc_policy: d.dmarcPolicy,
  dns_records: ctx.core.domains.publishableRecords(d),
  dns_records_unavailable: ctx.core.domains.recordsUnavailable(),
  auto_verification: { active: d.autoVerifyActive, reason: d.autoVerifyReason },
  last_checked_at: d.lastCheckAt,
});

const list = defineRoute({
  method: 'GET',
  path: '/v2/domains',
  summary: 'List the domains of the team',
  tag: 'Domains',
  scopes: ['domains:read'],
  rate: null,
  query: Type.Object(PageQuery),
  responses: { 200: { description: 'Domain list', schema: ListEnvelope(DomainListItem, { account_id: Type.Integer() }) } },
  async handle({ ctx, caller, query }) {
    const page = pageFrom(query, ctx.config);
    const { rows, total } = await ctx.core.domains.list(caller.acting, page);
    const items = rows.map((d) => domainListItem(d, caller.acting));
    return { body: { ...envelope(items, total, page), account_id: caller.acting.id } };
  },
});

const create = defineRoute({
  method: 'POST',
  path: '/v2/domains',
  summary: 'Add a sending domain; its DKIM key and DNS records are generated',
  tag: 'Domains',
  scopes: ['domains:write'],
  rate: 'domains',
  body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) }, { additionalProperties: false }),
  fieldCodes: { name: 'invalid_domain' },
  responses: {
    201: { description: 'Domain created as draft', schema: DataOf(DomainCreated) },
    402: { description: 'A subdomain needs credits on the account' },
    409: { description: 'The domain already exists' },
    422: { description: 'Not a valid public domain name' },
  },
  async handle({ ctx, caller, body, log }) {
    const created = valueOf(await ctx.core.domains.add(caller.acting, body.name, log));
    const data = { id: created.id, domain_name: created.name, verification_status: created.verificationStatus, created_at: toDisplayDateTime(created.createdAt) };
    return { status: 201, body: { data } };
  },
});

const read = defineRoute({
  method: 'GET',
  path: '/v2/domains/{id}',
  summary: 'Read a domain with its DNS records and verification state',
  tag: 'Domains',
  scopes: ['domains:read'],
  rate: 'writes',
  params: StringIdParams,
  responses: { 200: { description: 'Domain detail', schema: DataOf(DomainDetail) }, 404: { description: 'No such domain on this team' } },
  async handle({ ctx, caller, params }) {
    const domain = valueOf(await ctx.core.domains.get(caller.acting, params.id));
    return { body: { data: domainDetail(domain, ctx) } };
  },
});

const remove = defineRoute({
  method: 'DELETE',
  path: '/v2/domains/{id}',
  summary: 'Remove a domain',
  tag: 'Domains',
  scopes: ['domains:write'],
  rate: 'writes',
  params: StringIdParams,
  responses: {
    200: { description: 'Removed', schema: Type.Object({ deleted: Type.Literal(true), warning: Type.String() }) },
    404: { description: 'No such domain on this team' },
  },
  async handle({ ctx, caller, params, log }) {
    const { domain, recordsToRemove } = valueOf(await ctx.core.domains.remove(caller.acting, params.id, log));
    const warning = `Remove the DNS records Tern asked for from the zone of ${domain.name}: ${recordsToRemove.join(', ')}`;
    return { body: { deleted: true, warning } };
  },
});

export const domainRoutes: AnyRoute[] = [list, create, read, remove];
