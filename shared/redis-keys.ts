// Every Redis key and channel name the product uses, in one place.
const P = 'tern:';

export const redisKeys = {
  /** Sliding-window rate limit of one account and bucket ('domains', 'writes', 'send'): a sorted set of its hit times. */
  rateLimit: (accountId: number, bucket: string) => `${P}rl:${bucket}:${accountId}`,
  /** Suppression removals made today (UTC) by one account, shared with the dashboard. */
  suppressionRemovals: (accountId: number, day: string) => `${P}supdel:${accountId}:${day}`,
  /** DNS checks of one domain run on demand (a sliding window of their times). */
  domainChecks: (domainId: string) => `${P}rl:domain-check:${domainId}`,
  /** Mail Tern sent itself (a sliding window of its times) to one recipient (its sha256) or about one domain. */
  systemMail: (by: 'recipient' | 'domain', id: string) => `${P}rl:system-mail:${by}:${id}`,
  /** DMARC checks of one domain run on demand (the dashboard's), counted apart from the DNS checks. */
  domainDmarcChecks: (domainId: string) => `${P}rl:domain-dmarc:${domainId}`,
  /** Held by the process running the automatic domain check. */
  verifyLock: () => `${P}lock:verify-domains`,
  /** When the last automatic domain-check round ended and what it did (JSON), for `ternmail status`. */
  verifyLastRound: () => `${P}verify:last-round`,
  /** Published when a key is revoked, so every process drops it from its cache at once. */
  keyRevokedChannel: () => `${P}keys:revoked`,
  /** Recipients waiting for delivery: member = recipient id, score = when due (epoch ms). Rebuilt from SQLite. */
  queueDue: () => `${P}queue:due`,
  /** Published when new mail is queued, so an idle scheduler looks at once. */
  queueWakeChannel: () => `${P}queue:wake`,
  /** Failed dashboard logins (a sliding window) of one email (its sha256, lower-cased first) or one client address. */
  loginFailures: (by: 'email' | 'address', id: string) => `${P}login:fail:${by}:${id}`,
  /** Set once an email's lockout was mailed to its account's owners, for the lockout's window: one mail per lockout. */
  lockoutNotified: (emailHash: string) => `${P}login:lockout-mailed:${emailHash}`,
  /** A started sign-in with a provider (its state's hash): provider, PKCE verifier, nonce, where to land; taken once (GETDEL). */
  socialSignIn: (stateHash: string) => `${P}login:social:${stateHash}`,
  /** Password-reset links asked for (a sliding window) for one email (its sha256, lower-cased first) or from one client address. */
  passwordResets: (by: 'email' | 'address', id: string) => `${P}rl:password-reset:${by}:${id}`,
  /** Single sign-on tokens presented (a sliding window) from one client address (its sha256). */
  ssoTokens: (addressHash: string) => `${P}rl:sso:${addressHash}`,
  /** Magic sign-in links asked for (a sliding window) for one email (its sha256, lower-cased first) or from one client address. */
  magicLinks: (by: 'email' | 'address', id: string) => `${P}rl:magic-link:${by}:${id}`,
  /** The stored first response of an Idempotency-Key of one team (24 h). */
  idempotency: (teamId: number, key: string) => `${P}idem:${teamId}:${key}`,
  /** A value a page shows once after its form redirected (a new key's), for one session and page; taken when shown. */
  pageFlash: (sessionId: number, page: string) => `${P}flash:${sessionId}:${page}`,
  /**
   * Connections open to one destination domain across every MTA: member = a holder's slot id, score = when its
   * lease runs out (Redis time, ms). Rebuilt by itself: slots are taken again as connections open.
   */
  destinationSlots: (domain: string) => `${P}slots:${domain}`,
  /** The MTAs turned away from a destination lately: member = holder id, score = when its mark lapses (ms, Redis's clock). */
  destinationWaiters: (domain: string) => `${P}slots-waiting:${domain}`,
  /** Every API and MTA process seen lately: member = node id, score = when its record expires (ms). */
  nodes: () => `${P}nodes`,
  /** One node's heartbeat record (JSON), expiring by itself when the node stops renewing it. */
  node: (id: string) => `${P}node:${id}`,
  /** A proxied oEmbed answer (JSON), by the sha256 of its normalised args; expires after urlFetch.oembedCacheTtlS. */
  oembedProxy: (argsHash: string) => `${P}oembed:${argsHash}`,
  /** A url-details answer (JSON), by the sha256 of the URL; expires after urlFetch.urlDetailsCacheTtlS. */
  urlDetails: (urlHash: string) => `${P}url-details:${urlHash}`,
} as const;
