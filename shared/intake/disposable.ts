// Disposable-address filter: the maintained `disposable-email-domains` list (pinned), its wildcard list
// (a domain and every sub-domain), and the operator's own additions from config.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export class DisposableFilter {
  private readonly exact: Set<string>;
  private readonly wildcard: Set<string>;

  constructor(extra: readonly string[] = []) {
    this.exact = new Set([...(require('disposable-email-domains') as string[]), ...extra.map((d) => d.toLowerCase())]);
    this.wildcard = new Set(require('disposable-email-domains/wildcard.json') as string[]);
  }

  isDisposable(domain: string): boolean {
    const name = domain.toLowerCase();
    if (this.exact.has(name)) return true;
    const labels = name.split('.');
    for (let i = 0; i < labels.length - 1; i++) if (this.wildcard.has(labels.slice(i).join('.'))) return true;
    return false;
  }
}
