// `ternmail mta`: the mail transfer agent. In this release it runs the automatic domain verification;
// SMTP submission, the queue and delivery join it next.
import type { Config } from '../shared/config.js';
import { createResolver } from '../shared/dns.js';
import { openRuntime, type Runtime } from '../shared/runtime.js';
import { ensureTlsCertificate } from '../shared/tls.js';
import { DomainVerifier } from './verify-domains.js';

export interface RunningMta {
  rt: Runtime;
  verifier: DomainVerifier;
  close(): Promise<void>;
}

export async function startMta(config: Config, runtime?: Runtime): Promise<RunningMta> {
  const rt = runtime ?? (await openRuntime(config, 'mta'));
  await ensureTlsCertificate(config);
  const verifier = new DomainVerifier(rt, createResolver(config.dnsServers));
  verifier.start();
  rt.log.info({ verifyIntervalS: config.verify.intervalS, dnsServers: config.dnsServers }, 'mta started');
  return {
    rt,
    verifier,
    async close() {
      await verifier.stop();
      if (!runtime) await rt.close();
    },
  };
}
