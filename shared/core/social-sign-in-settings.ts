// The operators' settings of sign-in with a provider (FluentAuth's social-auth-settings): per provider, on or
// off, the client id, the client secret (sealed here, never given back: only whether one is set) and Google's
// issuer. Every save is in the platform's audit log, without the secret, in the save's transaction.
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { SecretBox } from '../secret-box.js';
import type { Logger } from '../log.js';
import type { Operator } from '../domain/user.js';
import {
  SOCIAL_PROVIDERS,
  socialProviderProblems,
  unsetProvider,
  type SocialProvider,
  type SocialProviderChange,
  type SocialProviderSettings,
} from '../domain/social-sign-in.js';
import { auditEntry } from './audit-log.js';
import { done, invalidFields, type Managed } from './management-refusals.js';

/** A provider's settings as an interface shows them: the secret only as whether one is set. */
export interface SocialProviderView {
  provider: SocialProvider;
  enabled: boolean;
  clientId: string;
  clientSecretSet: boolean;
  issuer: string | null;
}

export class SocialSignInSettings {
  constructor(private readonly d: { store: Store; secrets: SecretBox; config: Config }) {}

  async list(): Promise<SocialProviderView[]> {
    const stored = new Map((await this.d.store.socialSignIn.providers()).map((p) => [p.provider, p]));
    const at = new Date().toISOString();
    return SOCIAL_PROVIDERS.map((p) => viewOf(stored.get(p) ?? unsetProvider(p, at)));
  }

  /** Changes one provider; every field is checked and nothing changes when one is wrong. */
  async save(operator: Operator, provider: SocialProvider, change: SocialProviderChange, log: Logger): Promise<Managed<SocialProviderView[]>> {
    const at = new Date().toISOString();
    const current = (await this.d.store.socialSignIn.provider(provider)) ?? unsetProvider(provider, at);
    const sealed = change.clientSecret === undefined ? current.clientSecretEnc : change.clientSecret === '' ? null : this.d.secrets.seal(change.clientSecret);
    const merged: SocialProviderSettings = {
      provider,
      enabled: change.enabled ?? current.enabled,
      clientId: change.clientId ?? current.clientId,
      clientSecretEnc: sealed,
      issuer: change.issuer ?? current.issuer,
      updatedAt: at,
    };
    const [first, ...more] = socialProviderProblems(merged, change, this.d.config.dashboard.socialSignIn.allowHttpLoopback);
    if (first) return invalidFields([first, ...more]);
    await this.d.store.socialSignIn.putProvider(merged, (before) =>
      auditEntry(
        operator,
        {
          action: 'social_sign_in.save',
          target: { kind: 'platform', id: `social_sign_in.${provider}` },
          before: before ? auditedOf(before) : null,
          after: auditedOf(merged),
          reason: '',
        },
        at,
      ),
    );
    log.info({ by: operator.id, provider, enabled: merged.enabled }, 'sign-in provider saved');
    return done(await this.list());
  }
}

const viewOf = (s: SocialProviderSettings): SocialProviderView => ({
  provider: s.provider,
  enabled: s.enabled,
  clientId: s.clientId,
  clientSecretSet: s.clientSecretEnc !== null,
  issuer: s.issuer,
});

/** What the audit log keeps of a save: everything but the secret, whose presence only is told. */
const auditedOf = (s: SocialProviderSettings) => ({ enabled: s.enabled, client_id: s.clientId, client_secret_set: s.clientSecretEnc !== null, issuer: s.issuer });
