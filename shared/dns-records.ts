// The DNS records a domain publishes for Tern: DKIM at <selector>._domainkey, and at the return-path
// sub-name `send` an MX to our public host and an SPF record including it.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

export const RETURN_PATH_LABEL = 'send';
/** The longest name DNS can carry, in its text form without the final dot. */
export const MAX_DNS_NAME = 253;

export interface DnsRecord {
  type: 'TXT' | 'MX';
  name: string;
  content: string;
  TTL: string;
  priority: string;
}

export interface DomainDnsRecords {
  dkim: DnsRecord;
  spf: DnsRecord[];
}

export const dkimRecordName = (selector: string, domain: string): string => `${selector}._domainkey.${domain}`;
export const dkimTxt = (publicKey: string): string => `v=DKIM1; k=rsa; p=${publicKey}`;
export const spfTxt = (publicHostname: string): string => `v=spf1 include:${publicHostname} ~all`;

/** A host name as DNS answers compare it: lower case, no final dot. */
export const bareHost = (host: string): string => host.toLowerCase().replace(/\.$/, '');

/** Tag-value pairs of a DKIM or DMARC record (`v=DKIM1; k=rsa; p=...`), spaces inside values removed. */
export function recordTags(record: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) out.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/\s+/g, ''));
  }
  return out;
}

/** Whether a TXT value is a DKIM record publishing `publicKey` (its p= tag), in whatever tag order or spacing. */
export const dkimCarriesKey = (txt: string, publicKey: string): boolean => recordTags(txt).get('p') === publicKey;

export const isSpf = (txt: string): boolean => /^v=spf1(\s|$)/i.test(txt);

/** Whether an SPF record includes `host` (with any qualifier, in any case). */
export const spfIncludes = (txt: string, host: string): boolean =>
  txt
    .toLowerCase()
    .split(/\s+/)
    .some((term) => term.replace(/^[+?~-]/, '') === `include:${bareHost(host)}`);

export function dnsRecordsFor(d: { dkimSelector: string; dkimPublicKey: string }, publicHostname: string): DomainDnsRecords {
  return {
    dkim: { type: 'TXT', name: `${d.dkimSelector}._domainkey`, content: dkimTxt(d.dkimPublicKey), TTL: 'auto', priority: '' },
    spf: [
      { type: 'MX', name: RETURN_PATH_LABEL, content: publicHostname, TTL: 'auto', priority: '10' },
      { type: 'TXT', name: RETURN_PATH_LABEL, content: spfTxt(publicHostname), TTL: 'auto', priority: '' },
    ],
  };
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** An RSA key pair for DKIM: the public key as base64 DER (the p= tag), the private key as PKCS#8 PEM. */
export async function generateDkimKeyPair(bits: number): Promise<{ publicKey: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}
