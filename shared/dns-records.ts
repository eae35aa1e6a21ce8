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
