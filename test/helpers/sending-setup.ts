// A team ready to send over /v2 in tests: a domain written to the store (verified unless asked for a draft)
// and a sending key made through /v2.
import type { Harness } from './harness.js';
import { generateDkimKeyPair } from '../../shared/dns-records.js';

/** A domain of the team in the store, verified unless `draft`. */
export async function storedDomain(h: Harness, teamId: number, name: string, draft = false): Promise<{ id: string; name: string }> {
  const keys = await generateDkimKeyPair(1024);
  const d = await h.rt.store.domains.create({
    teamId,
    name,
    dkimSelector: 'tern',
    dkimPublicKey: keys.publicKey,
    dkimPrivateKeyEnc: h.rt.secrets.seal(keys.privateKeyPem),
  });
  if (d === 'exists') throw new Error(`${name} exists`);
  if (!draft) await h.rt.store.domains.recordCheck(d.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  return { id: d.id, name };
}

/** A sending key of the team `adminKey` acts on (or of `teamId` with it). */
export async function sendingKeyOf(h: Harness, adminKey: string, teamId?: number): Promise<string> {
  const made = await h.request('POST', '/v2/api-keys', { key: adminKey, body: { name: 'app' }, ...(teamId === undefined ? {} : { teamId }) });
  if (made.status !== 201) throw new Error(made.text);
  return (made.body as { data: { api_key: string } }).data.api_key;
}
