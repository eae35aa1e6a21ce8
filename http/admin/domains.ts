// /v2/domains: add a domain (its DKIM key and DNS records are generated), list, read, remove.
// Verification is automatic (mta/verify-domains); nothing here performs a DNS lookup.
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../route.js';
import { DataOf, IsoDateTime, ListEnvelope, PageQuery, SeedDateTime, StringIdParams } from '../schemas/common.js';
import { adminError } from '../../shared/errors.js';
import { checkDomainName } from '../../shared/domain-name.js';
import { dkimRecordName, dnsRecordsFor, generateDkimKeyPair, MAX_DNS_NAME } from '../../shared/dns-records.js';
import { toSeedDateTime } from '../../shared/time.js';
import type { Domain } from '../../domain/sending-domain.js';
import type { Team } from '../../domain/team.js';
import type { AppContext } from '../context.js';
import { envelope, pageFrom } from '../paging.js';

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
  created_at: SeedDateTime,
});

const DomainDetail = Type.Object({
  id: Type.String(),
  domain_name: Type.String(),
  verification_status: Type.Union([Type.Literal('draft'), Type.Literal('verified')]),
  created_at: SeedDateTime,
  dmarc_policy: Type.Union([Type.String(), Type.Null()]),
  dns_records: Type.Object({ dkim: DnsRecord, spf: Type.Array(DnsRecord) }),
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

const domainDetail = (d: Domain, ctx: AppContext) => ({
  id: d.id,
  domain_name: d.name,
  verification_status: d.verificationStatus,
  created_at: toSeedDateTime(d.createdAt),
  dmarc_policy: d.dmarcPolicy,
  dns_records: dnsRecordsFor(d, ctx.config.publicHostname),
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
    const { rows, total } = await ctx.store.domains.list(caller.acting.id, page);
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
  async handle({ ctx, caller, body }) {
    const checked = checkDomainName(body.name);
    if (!checked.ok) throw adminError('invalid_domain', `${body.name} is not a valid public domain name: ${checked.reason}`, { field: 'name' });
    // The DKIM record's name must fit in DNS (253 characters), or the domain could never be verified.
    if (dkimRecordName(ctx.config.dkim.selector, checked.name).length > MAX_DNS_NAME) {
      throw adminError('invalid_domain', `${checked.name} is too long: its DKIM record name would exceed ${MAX_DNS_NAME} characters`, { field: 'name' });
    }
    if (await ctx.store.domains.findByName(checked.name)) throw adminError('domain_exists', `${checked.name} already exists`);
    if (checked.isSubdomain && (await ctx.store.accounts.pooledBalance(caller.acting)) <= 0) {
      throw adminError('credits_required', 'Sending from a subdomain requires credits on the account');
    }
    const keys = await generateDkimKeyPair(ctx.config.dkim.keyBits);
    const created = await ctx.store.domains.create({
      accountId: caller.acting.id,
      name: checked.name,
      dkimSelector: ctx.config.dkim.selector,
      dkimPublicKey: keys.publicKey,
      dkimPrivateKeyEnc: ctx.secrets.seal(keys.privateKeyPem),
    });
    if (created === 'exists') throw adminError('domain_exists', `${checked.name} already exists`);
    ctx.log.info({ domain: created.id, name: created.name, team: caller.acting.id }, 'domain added');
    const data = { id: created.id, domain_name: created.name, verification_status: created.verificationStatus, created_at: toSeedDateTime(created.createdAt) };
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
    const domain = await ctx.store.domains.get(params.id, caller.acting.id);
    if (!domain) throw adminError('not_found', 'Domain not found');
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
  async handle({ ctx, caller, params }) {
    const domain = await ctx.store.domains.get(params.id, caller.acting.id);
    if (!domain || !(await ctx.store.domains.remove(domain.id, caller.acting.id))) throw adminError('not_found', 'Domain not found');
    // Keys limited to this domain could never send again: revoke them with it.
    await ctx.keyCache.revoked(ctx.redis, await ctx.store.keys.revokeForDomain(domain.id), ctx.log);
    ctx.log.info({ domain: domain.id, name: domain.name, team: caller.acting.id }, 'domain removed');
    const records = dnsRecordsFor(domain, ctx.config.publicHostname);
    const names = [records.dkim, ...records.spf].map((r) => `${r.type} ${r.name}.${domain.name}`);
    const warning = `Remove the DNS records Tern asked for from the zone of ${domain.name}: ${[...new Set(names)].join(', ')}`;
    return { body: { deleted: true, warning } };
  },
});

export const domainRoutes: AnyRoute[] = [list, create, read, remove];
