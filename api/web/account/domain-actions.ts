// What a domain's page can do: check its DNS now (in place under htmx, a redirect without), read its DMARC on
// demand, email its records, connect Cloudflare and publish the records there, disconnect, delete the domain.
// Each calls the use case its REST route calls; a refusal renders the domain's page again with the reason
// beside the form, in the status the dashboard answers for it.
import type { DnsConnectionRefusal } from '../../../shared/core/dns-connection.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import { dnsErrorFor } from '../../pipeline/dns-errors.js';
import { pageErrorFor, valueOrPageError } from '../errors.js';
import { accountPage, type PageCall } from '../page.js';
import { doneAt } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';
import { checksBlock, dmarcBlock, domainPage, domainPath, type PageProblems } from './domain-page.js';

type Call = PageCall<AccountViewer>;

const ITEM = '/domains/:domain_hash';

/** The domain the path names, of the team acted on; another team's (or none) is a 404 page. */
export const domainOf = async ({ ctx, r, viewer }: Call): Promise<Domain> => valueOrPageError(await ctx.core.domains.get(viewer.acting, r.params.domain_hash ?? ''));

const back = (d: Domain, code: string, anchor = ''): PageReply => ({ kind: 'redirect', status: 303, location: `${doneAt(domainPath(d), code)}${anchor}` });

/** The page again with `problem` beside the form of `where`; a missing domain stays a 404. */
async function refusedOn(call: Call, d: Domain, where: keyof PageProblems, refusal: ManagementRefusal): Promise<PageReply> {
  const e = pageErrorFor(refusal);
  if (e.status === 404) throw e;
  const page = await domainPage(call, d, { problems: { [where]: e.message }, status: e.status, email: call.form.get('email') ?? undefined });
  return { ...page, headers: { ...e.headers } };
}

async function dnsRefusedOn(call: Call, d: Domain, refusal: DnsConnectionRefusal): Promise<PageReply> {
  const e = dnsErrorFor(refusal);
  if (e.status === 404) throw pageErrorFor({ kind: 'not_found', what: 'domain', message: refusal.message });
  // Each refusal of the connection is worded for people (the provider's own words included): shown as it is.
  const page = await domainPage(call, d, { problems: { cloudflare: refusal.message }, status: e.status });
  return { ...page, headers: { ...e.headers } };
}

async function checkNow(call: Call): Promise<PageReply> {
  const { ctx, r, viewer, log } = call;
  const d = await domainOf(call);
  const checked = await ctx.core.domains.checkNow(viewer.acting, d.id, log);
  // htmx swaps only a successful answer: a refusal comes back as the block with its reason in it.
  if (r.fromHtmx) {
    return checked.ok
      ? { kind: 'fragment', body: checksBlock(ctx, viewer, checked.value.domain) }
      : { kind: 'fragment', body: checksBlock(ctx, viewer, d, pageErrorFor(checked.refusal).message) };
  }
  return checked.ok ? back(d, 'checked', '#checks') : refusedOn(call, d, 'check', checked.refusal);
}

async function checkDmarc(call: Call): Promise<PageReply> {
  const { ctx, r, viewer } = call;
  const d = await domainOf(call);
  const report = await ctx.core.dmarc.check(viewer.acting, d.id);
  if (r.fromHtmx) {
    return report.ok
      ? { kind: 'fragment', body: dmarcBlock(d, report.value) }
      : { kind: 'fragment', body: dmarcBlock(d, undefined, pageErrorFor(report.refusal).message) };
  }
  return report.ok ? domainPage(call, d, { dmarc: report.value }) : refusedOn(call, d, 'dmarc', report.refusal);
}

async function sendRecords(call: Call): Promise<PageReply> {
  const { ctx, viewer, form, log } = call;
  const d = await domainOf(call);
  const requester = { name: viewer.user.name, email: viewer.user.email };
  const sent = await ctx.core.dnsInstructions.send(viewer.acting, d.id, (form.get('email') ?? '').trim(), requester, log);
  return sent.ok ? back(d, 'records_sent') : refusedOn(call, d, 'send', sent.refusal);
}

async function connectCloudflare(call: Call): Promise<PageReply> {
  const { ctx, viewer, form, log } = call;
  const d = await domainOf(call);
  const connected = await ctx.core.dnsConnections.connect(viewer.acting, 'cloudflare', (form.get('api_token') ?? '').trim(), log);
  return connected.ok ? back(d, 'cloudflare_connected') : dnsRefusedOn(call, d, connected.refusal);
}

async function publishInCloudflare(call: Call): Promise<PageReply> {
  const { ctx, viewer, log } = call;
  const d = await domainOf(call);
  const published = await ctx.core.dnsConnections.publish(viewer.acting, 'cloudflare', d.id, log);
  if (!published.ok) return dnsRefusedOn(call, d, published.refusal);
  return back(d, published.value.records.every((x) => x.result === 'unchanged') ? 'published_unchanged' : 'published');
}

async function disconnectCloudflare(call: Call): Promise<PageReply> {
  const { ctx, viewer, log } = call;
  const d = await domainOf(call);
  const gone = await ctx.core.dnsConnections.disconnect(viewer.acting, 'cloudflare', log);
  return gone.ok ? back(d, 'cloudflare_disconnected') : dnsRefusedOn(call, d, gone.refusal);
}

async function deleteDomain(call: Call): Promise<PageReply> {
  const { ctx, viewer, log } = call;
  const d = await domainOf(call);
  valueOrPageError(await ctx.core.domains.remove(viewer.acting, d.id, log));
  return { kind: 'redirect', status: 303, location: doneAt('/domains', 'deleted') };
}

async function showDomain(call: Call): Promise<PageReply> {
  return domainPage(call, await domainOf(call));
}

const action = (path: string, title: string, access: 'read' | 'write', handle: (c: Call) => Promise<PageReply>) =>
  accountPage({ method: 'POST', path: `${ITEM}${path}`, title, access, section: '/domains', handle });

export const DOMAIN_ITEM_PAGES = [
  accountPage({ method: 'GET', path: ITEM, title: 'Domain', access: 'read', section: '/domains', handle: showDomain }),
  accountPage({ method: 'GET', path: `${ITEM}/dmarc`, title: 'DMARC', access: 'read', section: '/domains', handle: checkDmarc }),
  action('/verify', 'Check the DNS records', 'read', checkNow),
  action('/send-records', 'Email the DNS records', 'write', sendRecords),
  action('/cloudflare', 'Connect Cloudflare', 'write', connectCloudflare),
  action('/cloudflare/disconnect', 'Disconnect Cloudflare', 'write', disconnectCloudflare),
  action('/publish', 'Publish the DNS records', 'write', publishInCloudflare),
  action('/delete', 'Delete the domain', 'write', deleteDomain),
];
