// The portal's own data: what the ticket form asks (products, priorities, attachments: the configuration's
// `support`), the docs operators keep and suggest while a user writes (searched by title), and where tickets go
// (kept in Tern, and forwarded to an external helpdesk when an operator sets its URL: see forwarding.ts).
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { SupportDoc, SupportSettings } from '../../domain/support.js';
import { asAuditActor, auditedBy, type AuditActor } from '../audit-log.js';
import type { Operator } from '../../domain/user.js';
import { checkWebhookUrl } from '../../webhook-url.js';
import type { SecretBox } from '../../secret-box.js';
import { newSigningSecret } from '../../webhook-signing.js';
import { done, refuse, type Managed } from '../management-refusals.js';

export interface PortalDeps {
  config: Config;
  store: Store;
  secrets: SecretBox;
}

/** Saved settings, with the forwarding secret issued by this save (shown once; null: no URL). */
export interface SavedSettings {
  settings: SupportSettings;
  secret: string | null;
}

export const DOC_TITLE_MAX = 200;
/** Suggestions given for one search. */
export const DOC_SUGGESTIONS = 10;

export type PortalConfig = Config['support'];

/** https only (or http, as webhooks allow, on the ports they allow); no credentials, no control characters. */
function checkedLink(field: string, value: string): Managed<string> {
  const checked = checkWebhookUrl(value);
  return checked.ok ? done(checked.url) : refuse({ kind: 'invalid_field', field, message: `${field} is not a usable URL: ${checked.reason}` });
}

export class SupportPortal {
  constructor(private readonly d: PortalDeps) {}

  config(): PortalConfig {
    return this.d.config.support;
  }

  /** Docs whose title holds the search, newest first; none for a blank search. */
  searchDocs(search: string): Promise<SupportDoc[]> {
    return search.trim() === '' ? Promise.resolve([]) : this.d.store.support.searchDocs(search.trim(), DOC_SUGGESTIONS);
  }

  /** A doc added by an operator (dashboard) or the host's CLI, with its audit entry. */
  async addDoc(actor: Operator | AuditActor, title: string, link: string, log: Logger): Promise<Managed<SupportDoc>> {
    if (title.trim() === '' || title.length > DOC_TITLE_MAX)
      return refuse({ kind: 'invalid_field', field: 'title', message: `title must have 1 to ${DOC_TITLE_MAX} characters` });
    const url = checkedLink('link', link);
    if (!url.ok) return url;
    const by = auditedBy(asAuditActor(actor));
    const doc = await this.d.store.support.addDoc(title.trim(), url.value, by.operatorId, (made) => ({
      ...by,
      action: 'support_doc.create',
      target: { kind: 'support_doc', id: String(made.id) },
      before: null,
      after: { title: made.title, link: made.link },
      reason: '',
      at: made.createdAt,
    }));
    log.info({ doc: doc.id }, 'support doc added');
    return done(doc);
  }

  settings(): Promise<SupportSettings> {
    return this.d.store.support.settings();
  }

  /**
   * Where tickets go: null keeps them in Tern only; a URL turns forwarding on. Each save of a URL issues a new
   * signing secret (sealed at rest, answered once, never audited), so a secret shown once cannot be shown again.
   */
  async saveSettings(operator: Operator, forwardUrl: string | null, log: Logger): Promise<Managed<SavedSettings>> {
    let url: string | null = null;
    if (forwardUrl !== null) {
      const checked = checkedLink('forward_url', forwardUrl);
      if (!checked.ok) return checked;
      url = checked.value;
    }
    const secret = url === null ? null : newSigningSecret();
    const by = auditedBy(asAuditActor(operator));
    const saved = await this.d.store.support.saveSettings({ forwardUrl: url, forwardSecretEnc: secret && this.d.secrets.seal(secret) }, operator.id, (before, after) => ({
      ...by,
      action: 'support.settings',
      target: { kind: 'platform', id: 'support.api_settings' },
      before: { forward_url: before.forwardUrl },
      after: { forward_url: after.forwardUrl },
      reason: '',
      at: after.updatedAt ?? new Date().toISOString(),
    }));
    log.info({ by: operator.id, forwarding: url !== null }, 'support settings changed');
    return done({ settings: saved, secret });
  }
}
