// A new team's first steps, as its Overview lists them until they are done (issue 22 item 14): add a domain,
// publish its records (a verified domain), create a sending key, send a first message. Each step's state is read
// from the store here, so every interface shows the same checklist; and the SMTP settings a sending key is
// used with (host, ports and TLS modes from the configuration), as the Keys page shows them to copy.
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';

export interface OnboardingDeps {
  config: Config;
  store: Store;
}

export const FIRST_STEPS = ['add_domain', 'publish_records', 'create_key', 'send_message'] as const;
export type FirstStep = (typeof FIRST_STEPS)[number];

export interface FirstStepsState {
  /** Each step in order, done or not. */
  steps: ReadonlyArray<{ step: FirstStep; done: boolean }>;
  /** Every step is done: the checklist has nothing left to say. */
  complete: boolean;
}

/** How a mail client or library connects to Tern's submission service. */
export interface SmtpSettings {
  /** The public host name (the one the TLS certificate and the DNS records name). */
  host: string;
  /** Ports that take plain SMTP upgraded with STARTTLS (TLS required before AUTH). */
  starttlsPorts: readonly number[];
  /** Ports that speak TLS from the first byte (implicit TLS, "SSL"). */
  tlsPorts: readonly number[];
}

export class Onboarding {
  constructor(private readonly d: OnboardingDeps) {}

  /** The team's first steps and which are done; the domains, and whether one key or message exists. */
  async firstSteps(team: Team): Promise<FirstStepsState> {
    const [domains, keys, messages] = await Promise.all([
      this.d.store.domains.countsOf(team.id),
      this.d.store.keys.listSending(team.id, { page: 1, perPage: 1 }),
      this.d.store.messages.list(team.id, { page: 1, perPage: 1, searchCountLimit: 1 }),
    ]);
    const done: Record<FirstStep, boolean> = {
      add_domain: domains.live > 0,
      publish_records: domains.verified > 0,
      create_key: keys.total > 0,
      send_message: messages.total > 0,
    };
    const steps = FIRST_STEPS.map((step) => ({ step, done: done[step] }));
    return { steps, complete: steps.every((s) => s.done) };
  }

  smtpSettings(): SmtpSettings {
    const { publicHostname, smtp } = this.d.config;
    return { host: publicHostname, starttlsPorts: smtp.starttlsPorts, tlsPorts: smtp.tlsPorts };
  }
}
