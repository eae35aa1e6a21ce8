// The names that may be the apex of the zone holding a domain: the name itself, then each parent down to its
// registrable domain (by the Public Suffix List). A zone never sits above the registrable domain.
import { getDomain } from 'tldts';

export function zoneCandidates(domainName: string): string[] {
  const name = domainName.toLowerCase().replace(/\.$/, '');
  const registrable = getDomain(name, { allowPrivateDomains: true });
  if (!registrable || !name.endsWith(registrable)) return [name];
  const labels = name.split('.');
  const floor = registrable.split('.').length;
  return Array.from({ length: labels.length - floor + 1 }, (_, i) => labels.slice(i).join('.'));
}
