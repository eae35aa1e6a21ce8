// Configuration: defaults from config/defaults.json, then /etc/ternmail/ternmail.json (or the file named by
// TERNMAIL_CONFIG), then TERNMAIL_* environment variables. Loaded, validated and frozen once.
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { projectPath } from './paths.js';
import { isValidEmail } from './email-address.js';
import { isHttpLoopback } from './webhook-url.js';
import { publicHostnameProblem } from './public-hostname.js';
import { ConfigError, envText, loadPolicy, type EnvSetting, type Json } from './policy-file.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Positive = Type.Integer({ minimum: 1 });
/** Objects refuse keys they do not know: a typo in ternmail.json is an error, not a silent default. */
const Obj = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

const ConfigSchema = Obj({
  dataDir: Type.String({ minLength: 1 }),
  /**
   * The store on PostgreSQL (postgres:// or postgresql:// URL naming a database) instead of the embedded SQLite
   * file in dataDir; null keeps SQLite. Every API and MTA of an installation names the same database.
   */
  databaseUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  redisUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /**
   * Redis behind Sentinel, instead of redisUrl: the sentinels (host:port, 26379 when no port is given) asked for
   * the current master of the group `name`. The credentials, database and TLS a redis:// or rediss:// URL would
   * carry are given here: `password` (and `username`) of the master, `sentinelPassword` of the sentinels, `tls`
   * to both.
   */
  redisSentinel: Obj({
    sentinels: Type.Union([Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), Type.Null()]),
    name: Type.String({ minLength: 1, pattern: '^\\S+$' }),
    username: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    password: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    sentinelPassword: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    db: Type.Integer({ minimum: 0, maximum: 15 }),
    tls: Type.Boolean(),
  }),
  publicHostname: Type.Union([Type.String({ minLength: 1, maxLength: 253 }), Type.Null()]),
  dnsServers: Type.Array(Type.String({ minLength: 1 })),
  api: Obj({
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    bodyLimitBytes: Positive,
    /** Sending requests carry up to 10 MB of attachments, base64-encoded, and batches several messages. */
    sendBodyLimitBytes: Positive,
    /** Worker threads that compose the MIME messages of HTTP sends, off the event loop. */
    composeWorkers: Type.Integer({ minimum: 1, maximum: 16 }),
  }),
  /** Recipient domains treated as disposable, beyond the maintained list. */
  disposableDomains: Type.Array(Type.String({ minLength: 1 })),
  smtp: Obj({
    starttlsPorts: Type.Union([Type.Array(Port, { minItems: 1 }), Type.Null()]),
    tlsPorts: Type.Union([Type.Array(Port, { minItems: 1 }), Type.Null()]),
    mxPort: Type.Union([Port, Type.Null()]),
  }),
  tls: Obj({ cert: Type.Union([Type.String({ minLength: 1 }), Type.Null()]), key: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) }),
  verify: Obj({
    intervalS: Type.Number({ exclusiveMinimum: 0 }),
    maxDraftAgeDays: Positive,
    lockTtlS: Positive,
    /** Checks run on demand (the dashboard's verify route), per domain: at most `limit` in any `windowS` seconds. */
    onDemand: Obj({ limit: Positive, windowS: Positive }),
  }),
  webhooks: Obj({
    allowPrivate: Type.Boolean(),
    /** PEM file of extra CAs trusted for webhook receivers, on top of the system roots. */
    caFile: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  }),
  /**
   * Fetching pages users name (oEmbed's proxy, the block editor's url-details), by wp_safe_remote_get's rules.
   * `allowHosts`: `host:port` pairs exempt from the address and port rules (tests and closed networks only; a
   * redirect away from one is checked as any URL is). One deadline over the redirects; answers cached in Redis.
   */
  urlFetch: Obj({
    allowHosts: Type.Array(Type.String({ pattern: '^\\S+:\\d{1,5}$' })),
    timeoutMs: Type.Integer({ minimum: 100, maximum: 60_000 }),
    maxRedirects: Type.Integer({ minimum: 0, maximum: 10 }),
    /** What is kept of a page or a provider's answer (WordPress: 150 KB for discovery). */
    maxBytes: Type.Integer({ minimum: 1024, maximum: 10_485_760 }),
    /** How long a proxied oEmbed answer is kept (WordPress: a day) and a url-details answer (WordPress: an hour). */
    oembedCacheTtlS: Type.Integer({ minimum: 0, maximum: 604_800 }),
    urlDetailsCacheTtlS: Type.Integer({ minimum: 0, maximum: 604_800 }),
  }),
  keys: Obj({ cacheTtlS: Type.Integer({ minimum: 0, maximum: 60 }) }),
  /** Where the replies of sends made with an Idempotency-Key are kept: Redis, or the database (which survives a
   * Redis failover); null: the database on PostgreSQL, Redis on SQLite (core/sending/idempotency.ts decides). */
  idempotency: Obj({ store: Type.Unsafe<'redis' | 'database' | null>({ enum: ['redis', 'database', null] }) }),
  dkim: Obj({ selector: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), keyBits: Type.Integer({ minimum: 1024 }) }),
  accounts: Obj({
    defaultPlan: Type.String({ minLength: 1 }),
    defaultRegion: Type.String({ minLength: 1 }),
    defaultLimitPerSecond: Positive,
    firstStartCredits: Type.Integer({ minimum: 0 }),
  }),
  /**
   * How the platform takes payments: `offline` (no card; credits come from the platform's grants; the only
   * provider so far). The owner of a payer is mailed once each time its balance falls below `lowBalanceThreshold`.
   */
  billing: Obj({
    provider: Type.Union([Type.Literal('offline'), Type.Literal('stripe')]),
    /** With provider 'stripe': the account's keys; apiBaseUrl only to reach Stripe through another address (a test double, a proxy). */
    stripe: Obj({
      secretKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
      webhookSecret: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
      publishableKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
      apiBaseUrl: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    }),
    lowBalanceThreshold: Type.Integer({ minimum: 0 }),
    /** How often the API looks for payers that fell below the threshold. */
    lowBalanceCheckS: Positive,
    /** ISO 4217: the currency of prices and invoices. */
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    /** The price of 1,000 credits, tax included, in the currency's minor unit. */
    pricePerThousandCreditsMinor: Positive,
    /** The tax included in prices, in percent; 0 when the platform charges none. */
    taxRatePercent: Type.Number({ minimum: 0, maximum: 100 }),
    /** An EU buyer with a VAT number in another EU country than the seller's is invoiced without tax (reverse charge). */
    reverseChargeEu: Type.Boolean(),
    invoiceNumberPrefix: Type.String({ pattern: '^[A-Z0-9-]{1,12}$' }),
    /** The platform's billing identity, printed on every invoice. */
    seller: Obj({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      addressLines: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 3 }),
      postalCode: Type.String({ maxLength: 20 }),
      city: Type.String({ maxLength: 100 }),
      region: Type.String({ maxLength: 100 }),
      country: Type.String({ pattern: '^[A-Z]{2}$' }),
      taxId: Type.Union([Type.String({ minLength: 2, maxLength: 40 }), Type.Null()]),
      invoiceEmail: Type.Union([Type.String({ minLength: 3, maxLength: 254 }), Type.Null()]),
    }),
  }),
  regions: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  delivery: Obj({
    remotePort: Port,
    concurrency: Positive,
    perDomainConcurrency: Positive,
    recipientsPerConnection: Positive,
    connectTimeoutS: Positive,
    socketTimeoutS: Positive,
    leaseS: Positive,
    /**
     * How long a per-destination connection slot shared through Redis is held without being renewed: a
     * killed MTA's slots come free after this long (a live one renews its slots every third of it).
     */
    destinationSlotLeaseS: Type.Integer({ minimum: 3 }),
    /** Per region: the source address and EHLO name of its sending pool (null: the system's and the public host name). */
    pools: Type.Record(Type.String(), Obj({ localAddress: Type.Union([Type.String(), Type.Null()]), ehloName: Type.Union([Type.String(), Type.Null()]) })),
  }),
  limits: Obj({
    teamsPerAccount: Positive,
    adminKeysPerAccount: Positive,
    webhooksPerTeam: Positive,
    suppressionRemovalsPerDay: Positive,
    domainCreatesPerMinute: Positive,
    writesPerMinute: Positive,
    pageSizeMax: Positive,
    pageSizeDefault: Positive,
    pagingDepth: Positive,
  }),
  /** Platform suspension: a rate over a window of recent recipients passes its threshold, with at least
   * minVolume recipients and at least minBounces bounces (bounce rate) or minComplaints complaints (complaint
   * rate) in the window: one event in a small volume is noise, not a rate. */
  reputation: Obj({
    windowDays: Positive,
    minVolume: Positive,
    minBounces: Positive,
    minComplaints: Positive,
    maxBounceRate: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    maxComplaintRate: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
  }),
  /** The feedback-loop address on the public host name, and how long webhook delivery records are kept. */
  feedback: Obj({ fblLocalPart: Type.String({ pattern: '^[a-z0-9._+-]{1,64}$' }), webhookLogDays: Positive }),
  /** Mail Tern sends itself (invitations, DNS instructions): from an address on a verified domain of the operator's
   * team (null: such mail is refused), at most perRecipientPerHour to one address, and DNS instructions of one
   * domain at most dnsInstructionsPerDomainPerHour. */
  systemMail: Obj({
    from: Type.Union([Type.String({ minLength: 3, maxLength: 254 }), Type.Null()]),
    fromName: Type.String({ maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$' }),
    perRecipientPerHour: Positive,
    dnsInstructionsPerDomainPerHour: Positive,
  }),
  /** Invitations of dashboard users: how long the link works. */
  invitations: Obj({ expiryDays: Type.Integer({ minimum: 1, maximum: 90 }) }),
  /** The dashboard's statistics: the period asked for when none is given (by day, by hour), the longest period, and the longest
   * one counted by hour (31 days: 744 points). Each bounds what one request reads. */
  statistics: Obj({ defaultDays: Positive, defaultHourlyDays: Positive, maxDays: Positive, maxHourlyDays: Positive }),
  /** DNS hosting providers a team may connect so Tern publishes its domains' records (the base URL points tests at a double). */
  dnsProviders: Obj({
    cloudflare: Obj({ baseUrl: Type.String({ minLength: 1 }), timeoutS: Positive, retries: Type.Integer({ minimum: 0, maximum: 5 }) }),
  }),
  /**
   * `workers`: MTA processes on this machine, each a whole MTA (submission, MX, delivery) sharing the SMTP ports
   * (node:cluster) and the store and Redis, under one supervising process that restarts a worker that dies and
   * answers the metrics port for all of them (mta/workers.ts). One per core uses the machine; 1 runs no supervisor.
   */
  mta: Obj({ workers: Type.Integer({ minimum: 1, maximum: 64 }) }),
  /**
   * The metrics listeners (/metrics, /healthz, /readyz) on `host`: the MTA's on `mtaPort`; the API's on `apiPort`
   * when set (null: the API serves no metrics). Never on the API's own port, which users reach.
   */
  metrics: Obj({
    host: Type.String({ minLength: 1 }),
    mtaPort: Type.Integer({ minimum: 0, maximum: 65535 }),
    apiPort: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()]),
  }),
  /** /readyz and `ternmail status`: how long each part (store, Redis, a listener, a process) has to answer. */
  /**
   * `heartbeatS`: how often each API and MTA records itself in Redis (the nodes `ternmail status` lists);
   * `nodeTtlS`: how long a record outlives its last heartbeat, so a killed node disappears by itself.
   */
  health: Obj({ probeTimeoutMs: Type.Integer({ minimum: 50, maximum: 30_000 }), heartbeatS: Positive, nodeTtlS: Positive }),
  /**
   * Site health (wp-site-health/v1, /admin/site-health; shared/core/site-health.ts): where each check turns from
   * good to recommended and from recommended to critical. `tlsExpiryDays`: a certificate expiring sooner is
   * recommended (expired is critical). `queueBacklog…`: recipients in flight; `queueOldest…S`: seconds since the
   * oldest of them was queued. `diskFree…Percent`: free space left on the data dir's file system. `backup…Hours`:
   * hours since the last `ternmail backup` (none at all is critical).
   */
  siteHealth: Obj({
    tlsExpiryDays: Positive,
    queueBacklogRecommended: Positive,
    queueBacklogCritical: Positive,
    queueOldestRecommendedS: Positive,
    queueOldestCriticalS: Positive,
    diskFreeRecommendedPercent: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
    diskFreeCriticalPercent: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
    backupRecommendedHours: Positive,
    backupCriticalHours: Positive,
  }),
  log: Obj({ level: Type.Unsafe<LogLevel>({ type: 'string', enum: [...LOG_LEVELS] }) }),
  /** Dashboard users: the owner made at first start, cookie and session lifetimes, login throttling. The
   * session and per-email figures are defaults an account's login settings may override (within bounds). */
  /**
   * The support portal (tern-support/v1): the products and priorities a ticket may name (the portal's form
   * offers them, GET /portal-config lists them), the priority a ticket without one gets, and the files a ticket may
   * carry (each at most `maxBytes`, of one of `types`, at most `perMessage` on a ticket or a response).
   */
  support: Obj({
    products: Type.Array(Obj({ id: Type.String({ pattern: '^[a-z0-9_-]{1,40}$' }), title: Type.String({ minLength: 1, maxLength: 100 }) }), { maxItems: 50 }),
    priorities: Type.Array(Obj({ id: Type.String({ pattern: '^[a-z0-9_-]{1,40}$' }), title: Type.String({ minLength: 1, maxLength: 100 }) }), {
      minItems: 1,
      maxItems: 10,
    }),
    defaultPriority: Type.String({ minLength: 1 }),
    attachments: Obj({
      maxBytes: Type.Integer({ minimum: 1, maximum: 20 * 1024 * 1024 }),
      types: Type.Array(Type.String({ pattern: '^[a-z]+/[a-z0-9.+-]+$' }), { minItems: 1 }),
      perMessage: Type.Integer({ minimum: 1, maximum: 20 }),
      /** An upload never sent with a ticket or response is deleted this long after it was uploaded. */
      unsentKeepHours: Type.Integer({ minimum: 1, maximum: 720 }),
    }),
    /**
     * Forwarding tickets and responses to the external helpdesk (api_settings.forward_url): the API's dispatcher
     * looks at the outbox every `intervalMs`; a failed attempt is retried after `retryBaseMs`, doubling each time,
     * and the forward is failed for good after `maxAttempts` attempts or `maxAgeHours` after it was written.
     */
    forwarding: Obj({
      intervalMs: Type.Integer({ minimum: 50, maximum: 600_000 }),
      retryBaseMs: Type.Integer({ minimum: 10, maximum: 3_600_000 }),
      maxAttempts: Type.Integer({ minimum: 1, maximum: 50 }),
      maxAgeHours: Type.Integer({ minimum: 1, maximum: 168 }),
      timeoutMs: Type.Integer({ minimum: 100, maximum: 60_000 }),
    }),
  }),
  /**
   * The media library (wp/v2/media): the largest file one may upload (refused while it streams in) and the types
   * accepted, each with the file-name extensions it may carry. A type is the one the bytes say (file-type; text/plain
   * for UTF-8 text with no control characters), never the name's or a declared one; a name whose extension is not
   * one of its type's is refused. Never a type a browser runs (HTML, SVG, JavaScript).
   */
  media: Obj({
    maxBytes: Type.Integer({ minimum: 1, maximum: 100 * 1024 * 1024 }),
    types: Type.Record(
      Type.String({ pattern: '^(image/(jpeg|png|gif|webp|avif)|application/pdf|text/plain|font/(woff|woff2|ttf|otf))$' }),
      Type.Array(Type.String({ pattern: '^[a-z0-9]{1,10}$' }), { minItems: 1 }),
    ),
  }),
  dashboard: Obj({
    ownerEmail: Type.String({ minLength: 3, maxLength: 254 }),
    /** scheme://host[:port] the dashboard is reached at, for links in mail Tern sends (invitations); null: the
     * origin the request that causes the mail was addressed to. Set it behind a proxy that terminates TLS. */
    publicUrl: Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()]),
    secureCookies: Type.Boolean(),
    /** The largest account icon one may upload (PNG, JPEG or WebP), refused while it streams in. */
    iconMaxBytes: Type.Integer({ minimum: 1024, maximum: 10_485_760 }),
    /** The largest image operators may upload for the sign-in page's branding (PNG, JPEG or WebP). */
    brandingImageMaxBytes: Type.Integer({ minimum: 1024, maximum: 10_485_760 }),
    session: Obj({ idleMinutes: Type.Integer({ minimum: 5, maximum: 10_080 }), absoluteHours: Type.Integer({ minimum: 1, maximum: 720 }) }),
    login: Obj({
      failuresPerEmail: Type.Integer({ minimum: 3, maximum: 50 }),
      /** Per client address, across every account: not an account's to loosen. */
      failuresPerAddress: Type.Integer({ minimum: 3, maximum: 1000 }),
      windowMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
    }),
    /** Forgot password: how long a mailed link works, and how many links may be asked for in an hour per email
     * (counted whether or not a user has it) and per client address. */
    passwordReset: Obj({
      ttlS: Type.Integer({ minimum: 60, maximum: 86_400 }),
      perEmailPerHour: Type.Integer({ minimum: 1, maximum: 100 }),
      perAddressPerHour: Type.Integer({ minimum: 1, maximum: 10_000 }),
    }),
    /** Two-step sign-in by mail: how long a mailed code works, and how many wrong codes end it (sign in again). */
    twoStep: Obj({
      codeTtlS: Type.Integer({ minimum: 60, maximum: 3600 }),
      maxTries: Type.Integer({ minimum: 1, maximum: 10 }),
    }),
    /** Sign-in with a provider: how long a started sign-in may take (its state, nonce and PKCE verifier kept in
     * Redis that long, used once); GitHub's fixed endpoints (its web origin for authorize and access_token, its API
     * origin for the user and emails); plain-HTTP issuers and endpoints on the loopback interface, for tests only. */
    socialSignIn: Obj({
      stateTtlS: Type.Integer({ minimum: 60, maximum: 3600 }),
      allowHttpLoopback: Type.Boolean(),
      github: Obj({ webBaseUrl: Type.String({ minLength: 1, maxLength: 2048 }), apiBaseUrl: Type.String({ minLength: 1, maxLength: 2048 }) }),
    }),
    /** Single sign-on between dashboards: how long a token sent to a paired dashboard works, and how many tokens one
     * client address may present (accepted or not) per hour. */
    sso: Obj({
      tokenTtlS: Type.Integer({ minimum: 1, maximum: 600 }),
      perAddressPerHour: Type.Integer({ minimum: 1, maximum: 10_000 }),
    }),
    /** Magic-link sign-in: whether the sign-in page offers it (an account still turns it on for its users), how long
     * a link works, and how many may be asked for in an hour per email (counted whether or not a user has it) and
     * per client address. */
    magicLink: Obj({
      offered: Type.Boolean(),
      ttlS: Type.Integer({ minimum: 60, maximum: 3600 }),
      perEmailPerHour: Type.Integer({ minimum: 1, maximum: 100 }),
      perAddressPerHour: Type.Integer({ minimum: 1, maximum: 10_000 }),
    }),
  }),
});

type RawConfig = Static<typeof ConfigSchema>;

/** One sentinel's address. */
export interface SentinelAddress {
  host: string;
  port: number;
}

/**
 * The Redis every process connects to: a URL (redis://, rediss://, unix://) as ever, or a master group behind
 * Sentinel (ioredis asks the sentinels for the current master, and again after a failover).
 */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | {
      kind: 'sentinel';
      sentinels: readonly SentinelAddress[];
      name: string;
      username: string | null;
      password: string | null;
      sentinelPassword: string | null;
      db: number;
      tls: boolean;
    };

/** The configuration after defaults that depend on the machine (ports, host name) are filled in. */
export type Config = Readonly<
  Omit<RawConfig, 'smtp' | 'publicHostname'> & {
    /** redisUrl or redisSentinel, whichever is set; null when neither is (`ternmail start` then runs its own). */
    redis: RedisTarget | null;
    publicHostname: string;
    /** Whether publicHostname was set (TERNMAIL_PUBLIC_HOSTNAME or the file) rather than taken from the machine's name. */
    publicHostnameSet: boolean;
    /** Why publicHostname cannot be published as the MX target and SPF include (unset on a machine with a bare
     * name, or not a public name), in the operator's words naming the setting; null when it can. The processes
     * start all the same; domains' records are not shown and no domain is verified against it. */
    publicHostnameProblem: string | null;
    smtp: { starttlsPorts: number[]; tlsPorts: number[]; mxPort: number };
  }
>;

const { string: asString, int: asInt, number: asNumber, list: asList, intList: asIntList, bool: asBool } = envText;

/** Every environment variable the product reads, and the config path it overrides. */
const ENV_OVERRIDES: readonly EnvSetting[] = [
  ['TERNMAIL_DATA_DIR', ['dataDir'], asString],
  ['TERNMAIL_DATABASE_URL', ['databaseUrl'], asString],
  ['TERNMAIL_REDIS_URL', ['redisUrl'], asString],
  ['TERNMAIL_REDIS_SENTINELS', ['redisSentinel', 'sentinels'], asList],
  ['TERNMAIL_REDIS_SENTINEL_NAME', ['redisSentinel', 'name'], asString],
  ['TERNMAIL_REDIS_PASSWORD', ['redisSentinel', 'password'], asString],
  ['TERNMAIL_REDIS_SENTINEL_PASSWORD', ['redisSentinel', 'sentinelPassword'], asString],
  ['TERNMAIL_REDIS_TLS', ['redisSentinel', 'tls'], asBool],
  ['TERNMAIL_PUBLIC_HOSTNAME', ['publicHostname'], asString],
  ['TERNMAIL_DNS_SERVERS', ['dnsServers'], asList],
  ['TERNMAIL_API_HOST', ['api', 'host'], asString],
  ['TERNMAIL_API_PORT', ['api', 'port'], asInt],
  ['TERNMAIL_API_COMPOSE_WORKERS', ['api', 'composeWorkers'], asInt],
  ['TERNMAIL_SMTP_STARTTLS_PORTS', ['smtp', 'starttlsPorts'], asIntList],
  ['TERNMAIL_SMTP_TLS_PORTS', ['smtp', 'tlsPorts'], asIntList],
  ['TERNMAIL_MX_PORT', ['smtp', 'mxPort'], asInt],
  ['TERNMAIL_TLS_CERT', ['tls', 'cert'], asString],
  ['TERNMAIL_TLS_KEY', ['tls', 'key'], asString],
  ['TERNMAIL_VERIFY_INTERVAL_S', ['verify', 'intervalS'], asNumber],
  ['TERNMAIL_WEBHOOK_ALLOW_PRIVATE', ['webhooks', 'allowPrivate'], asBool],
  ['TERNMAIL_WEBHOOK_CA_FILE', ['webhooks', 'caFile'], asString],
  ['TERNMAIL_URL_FETCH_ALLOW_HOSTS', ['urlFetch', 'allowHosts'], asList],
  ['TERNMAIL_LOG_LEVEL', ['log', 'level'], asString],
  ['TERNMAIL_IDEMPOTENCY_STORE', ['idempotency', 'store'], asString],
  ['TERNMAIL_REMOTE_SMTP_PORT', ['delivery', 'remotePort'], asInt],
  ['TERNMAIL_MTA_WORKERS', ['mta', 'workers'], asInt],
  ['TERNMAIL_METRICS_PORT', ['metrics', 'mtaPort'], asInt],
  ['TERNMAIL_API_METRICS_PORT', ['metrics', 'apiPort'], asInt],
  ['TERNMAIL_OWNER_EMAIL', ['dashboard', 'ownerEmail'], asString],
  ['TERNMAIL_DASHBOARD_URL', ['dashboard', 'publicUrl'], asString],
  ['TERNMAIL_SECURE_COOKIES', ['dashboard', 'secureCookies'], asBool],
  ['TERNMAIL_SOCIAL_ALLOW_HTTP_LOOPBACK', ['dashboard', 'socialSignIn', 'allowHttpLoopback'], asBool],
  ['TERNMAIL_GITHUB_WEB_URL', ['dashboard', 'socialSignIn', 'github', 'webBaseUrl'], asString],
  ['TERNMAIL_GITHUB_API_URL', ['dashboard', 'socialSignIn', 'github', 'apiBaseUrl'], asString],
  ['TERNMAIL_CLOUDFLARE_BASE_URL', ['dnsProviders', 'cloudflare', 'baseUrl'], asString],
  ['TERNMAIL_SYSTEM_MAIL_FROM', ['systemMail', 'from'], asString],
  ['TERNMAIL_LOW_BALANCE_THRESHOLD', ['billing', 'lowBalanceThreshold'], asInt],
  ['TERNMAIL_BILLING_PROVIDER', ['billing', 'provider'], asString],
  ['TERNMAIL_STRIPE_SECRET_KEY', ['billing', 'stripe', 'secretKey'], asString],
  ['TERNMAIL_STRIPE_WEBHOOK_SECRET', ['billing', 'stripe', 'webhookSecret'], asString],
  ['TERNMAIL_STRIPE_PUBLISHABLE_KEY', ['billing', 'stripe', 'publishableKey'], asString],
  ['TERNMAIL_STRIPE_API_BASE_URL', ['billing', 'stripe', 'apiBaseUrl'], asString],
];

export { ConfigError };

/** CAP_NET_BIND_SERVICE (capability 10) in this process's effective set, as systemd's AmbientCapabilities gives it. */
function hasNetBindCapability(): boolean {
  try {
    const line = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return line ? (BigInt(`0x${line[1]}`) & (1n << 10n)) !== 0n : false;
  } catch {
    return false;
  }
}

/** Privileged ports are used only when this process may bind them: root, CAP_NET_BIND_SERVICE, or a kernel
 * that lets anyone bind port 25 (net.ipv4.ip_unprivileged_port_start). */
export function mayBindPrivileged(): boolean {
  if (process.getuid?.() === 0 || hasNetBindCapability()) return true;
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    return start <= 25;
  } catch {
    return false;
  }
}

/** The operator's sentence for a public host name that cannot be used, naming the variable to set. */
function hostnameProblemOf(raw: RawConfig, host: string): string | null {
  const problem = publicHostnameProblem(host);
  if (problem === null) return null;
  const what =
    raw.publicHostname === null ? `TERNMAIL_PUBLIC_HOSTNAME is not set, and this machine's name "${host}"` : `TERNMAIL_PUBLIC_HOSTNAME (publicHostname) "${host}"`;
  return `${what} cannot be the public host name domains point their MX and SPF records at: ${problem}. Set TERNMAIL_PUBLIC_HOSTNAME to this server's public DNS name (such as mx.example.com); until then no domain's DNS records are shown and no domain is verified.`;
}

/** `host:port`, `host` (port 26379, Sentinel's own) or `[v6]:port`; null when it is none of them. */
export function parseSentinel(text: string): SentinelAddress | null {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
  if (!m) return null;
  const host = m[1] ?? m[2]!;
  const port = m[3] === undefined ? 26379 : Number(m[3]);
  if (port < 1 || port > 65535) return null;
  if (m[1] !== undefined ? isIP(host) !== 6 : !isIP(host) && !host.split('.').every((label) => HOST_LABEL.test(label))) return null;
  return { host, port };
}

function redisTargetOf(raw: RawConfig): RedisTarget | null {
  const { sentinels, ...rest } = raw.redisSentinel;
  if (sentinels !== null) return { kind: 'sentinel', sentinels: sentinels.map((s) => parseSentinel(s)!), ...rest };
  return raw.redisUrl === null ? null : { kind: 'url', url: raw.redisUrl };
}

/** Checks of the Redis settings: one way to reach Redis, sentinels that parse, Sentinel's settings only with sentinels. */
function redisProblems(raw: RawConfig, named: (key: string) => string): string[] {
  const problems: string[] = [];
  const { sentinels, username, password, sentinelPassword, tls } = raw.redisSentinel;
  if (raw.redisUrl !== null && !/^(rediss?:\/\/|unix:\/\/\/|\/)/.test(raw.redisUrl)) {
    problems.push(`${named('redisUrl')} "${raw.redisUrl}" must be a redis://, rediss:// or unix:///path URL, or an absolute socket path`);
  }
  if (sentinels === null) {
    // tls counts only when turned on: false is its default.
    const onlyWithSentinels = { username, password, sentinelPassword, tls: tls ? true : null };
    for (const [key, value] of Object.entries(onlyWithSentinels)) {
      if (value !== null)
        problems.push(
          `${named(`redisSentinel.${key}`)} is for Redis behind Sentinel: set redisSentinel.sentinels (TERNMAIL_REDIS_SENTINELS) too, or give it in TERNMAIL_REDIS_URL`,
        );
    }
    return problems;
  }
  if (raw.redisUrl !== null) problems.push(`${named('redisUrl')} and ${named('redisSentinel.sentinels')} are both set: give Redis's URL or its sentinels, not both`);
  for (const entry of sentinels) {
    if (!parseSentinel(entry)) problems.push(`${named('redisSentinel.sentinels')} entry "${entry}" must be host:port (a host name or IP address, [v6]:port for IPv6)`);
  }
  return problems;
}

function withMachineDefaults(raw: RawConfig): Config {
  const privileged = mayBindPrivileged();
  const publicHostname = (raw.publicHostname ?? hostname()).toLowerCase().replace(/\.$/, '');
  return {
    ...raw,
    redis: redisTargetOf(raw),
    dataDir: resolve(raw.dataDir),
    publicHostname,
    publicHostnameSet: raw.publicHostname !== null,
    publicHostnameProblem: hostnameProblemOf(raw, publicHostname),
    smtp: {
      starttlsPorts: raw.smtp.starttlsPorts ?? (privileged ? [587, 2587] : [2587]),
      tlsPorts: raw.smtp.tlsPorts ?? (privileged ? [465, 2465] : [2465]),
      mxPort: raw.smtp.mxPort ?? (privileged ? 25 : 2525),
    },
  };
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Values applied after the files and before the environment (tests and the CLI use it). */
  overrides?: Json;
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** `1.2.3.4`, `1.2.3.4:5353`, `::1` or `[::1]:5353`, as dns.Resolver#setServers takes them. */
function isDnsServer(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return isIP(bracketed[1]!) === 6 && (bracketed[2] === undefined || +bracketed[2] <= 65535);
  if (isIP(text)) return true;
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(text);
  return !!withPort && isIP(withPort[1]!) === 4 && +withPort[2]! >= 1 && +withPort[2]! <= 65535;
}

/** An http(s) URL that is only an origin: no path (but "/"), query, fragment or credentials. */
const isOriginUrl = (text: string): boolean => isHttpUrl(text) && /^https?:\/\/[^/?#@]+\/?$/.test(text);

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** Stripe needs its secret and webhook keys; an API base URL, when given, is an origin. */
function stripeProblems(raw: RawConfig, named: (key: string) => string): string[] {
  const { provider, stripe } = raw.billing;
  const problems: string[] = [];
  if (provider === 'stripe' && stripe.secretKey === null) problems.push(`${named('billing.stripe.secretKey')} is required when billing.provider is stripe`);
  if (provider === 'stripe' && stripe.webhookSecret === null) problems.push(`${named('billing.stripe.webhookSecret')} is required when billing.provider is stripe`);
  if (stripe.apiBaseUrl !== null && !isOriginUrl(stripe.apiBaseUrl))
    problems.push(`${named('billing.stripe.apiBaseUrl')} "${stripe.apiBaseUrl}" must be an http(s) origin`);
  return problems;
}

/** Checks the schema cannot express; each problem names the setting (and the variable that set it). */
/** A PostgreSQL URL names a database on a host: postgres://user:password@host:port/database. */
function databaseProblems(raw: RawConfig, named: (key: string) => string): string[] {
  if (raw.databaseUrl === null) return [];
  let url: URL;
  try {
    url = new URL(raw.databaseUrl);
  } catch {
    return [`${named('databaseUrl')} must be a postgres:// URL (postgres://user:password@host:5432/database)`];
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return [`${named('databaseUrl')} must be a postgres:// or postgresql:// URL, not ${url.protocol}//`];
  if (url.pathname.length <= 1) return [`${named('databaseUrl')} must name the database (postgres://host:5432/<database>)`];
  return [];
}

/** The support portal's choices: ids unique, the default priority one of them. */
function supportProblems(raw: RawConfig): string[] {
  const problems: string[] = [];
  const { products, priorities, defaultPriority } = raw.support;
  if (!priorities.some((p) => p.id === defaultPriority)) problems.push(`support.defaultPriority "${defaultPriority}" is not one of support.priorities' ids`);
  for (const [name, list] of [
    ['products', products],
    ['priorities', priorities],
  ] as const) {
    if (new Set(list.map((x) => x.id)).size !== list.length) problems.push(`support.${name} names an id twice`);
  }
  return problems;
}

/** GitHub's origins: https, or http on the loopback interface when allowHttpLoopback says so (tests' doubles). */
function socialSignInProblems(raw: RawConfig, named: (key: string) => string): string[] {
  const { allowHttpLoopback, github } = raw.dashboard.socialSignIn;
  const problems: string[] = [];
  for (const [key, url] of [
    ['webBaseUrl', github.webBaseUrl],
    ['apiBaseUrl', github.apiBaseUrl],
  ] as const) {
    const httpsOrigin = isOriginUrl(url) && url.startsWith('https://');
    if (!httpsOrigin && !(allowHttpLoopback && isOriginUrl(url) && isHttpLoopback(url)))
      problems.push(`${named(`dashboard.socialSignIn.github.${key}`)} "${url}" must be an https:// origin (http on the loopback interface only with allowHttpLoopback)`);
  }
  return problems;
}

/** Each site-health check's critical threshold lies beyond its recommended one, or it would never be recommended. */
function siteHealthProblems(h: RawConfig['siteHealth']): string[] {
  const pairs: Array<[string, boolean]> = [
    ['queueBacklogCritical must be larger than queueBacklogRecommended', h.queueBacklogCritical > h.queueBacklogRecommended],
    ['queueOldestCriticalS must be larger than queueOldestRecommendedS', h.queueOldestCriticalS > h.queueOldestRecommendedS],
    ['diskFreeCriticalPercent must be smaller than diskFreeRecommendedPercent', h.diskFreeCriticalPercent < h.diskFreeRecommendedPercent],
    ['backupCriticalHours must be larger than backupRecommendedHours', h.backupCriticalHours > h.backupRecommendedHours],
  ];
  return pairs.filter(([, ok]) => !ok).map(([problem]) => `siteHealth.${problem}`);
}

function semanticProblems(raw: RawConfig, named: (key: string) => string): string[] {
  const problems: string[] = [];
  problems.push(...stripeProblems(raw, named));
  problems.push(...supportProblems(raw));
  if (!raw.regions.includes(raw.accounts.defaultRegion)) {
    problems.push(`accounts.defaultRegion "${raw.accounts.defaultRegion}" is not one of regions (${raw.regions.join(', ')})`);
  }
  problems.push(...redisProblems(raw, named));
  problems.push(...databaseProblems(raw, named));
  if (raw.publicHostname !== null) {
    const host = raw.publicHostname.replace(/\.$/, '');
    if (isIP(host) || !host.split('.').every((label) => HOST_LABEL.test(label))) {
      problems.push(`${named('publicHostname')} "${raw.publicHostname}" must be a host name (the MX target and SPF include), not an address`);
    }
  }
  for (const server of raw.dnsServers) {
    if (!isDnsServer(server)) problems.push(`${named('dnsServers')} entry "${server}" must be an IP address, optionally with :port ([v6]:port for IPv6)`);
  }
  if ((raw.tls.cert === null) !== (raw.tls.key === null)) {
    problems.push('tls.cert and tls.key must be given together (TERNMAIL_TLS_CERT and TERNMAIL_TLS_KEY), or neither');
  }
  if (!isHttpUrl(raw.dnsProviders.cloudflare.baseUrl)) {
    problems.push(`${named('dnsProviders.cloudflare.baseUrl')} "${raw.dnsProviders.cloudflare.baseUrl}" must be an http:// or https:// URL`);
  }
  if (raw.limits.pageSizeDefault > raw.limits.pageSizeMax) problems.push('limits.pageSizeDefault is larger than limits.pageSizeMax');
  if (raw.health.nodeTtlS <= raw.health.heartbeatS)
    problems.push('health.nodeTtlS must be longer than health.heartbeatS, or live nodes would blink out between heartbeats');
  problems.push(...siteHealthProblems(raw.siteHealth));
  if (raw.systemMail.from !== null && !isValidEmail(raw.systemMail.from)) {
    problems.push(`${named('systemMail.from')} "${raw.systemMail.from}" must be an email address on a verified domain of the operator's team`);
  }
  if (raw.dashboard.publicUrl !== null && !isOriginUrl(raw.dashboard.publicUrl)) {
    problems.push(`${named('dashboard.publicUrl')} "${raw.dashboard.publicUrl}" must be an http:// or https:// origin (scheme://host[:port], no path)`);
  }
  problems.push(...socialSignInProblems(raw, named));
  if (!isValidEmail(raw.dashboard.ownerEmail)) problems.push(`${named('dashboard.ownerEmail')} "${raw.dashboard.ownerEmail}" must be an email address`);
  return problems;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const named = env.TERNMAIL_CONFIG !== undefined && env.TERNMAIL_CONFIG !== '';
  const file = named ? env.TERNMAIL_CONFIG! : '/etc/ternmail/ternmail.json';
  const files = [projectPath('config', 'defaults.json'), ...(named || existsSync(file) ? [file] : [])];
  return loadPolicy({
    what: 'configuration',
    schema: ConfigSchema,
    files,
    overrides: options.overrides,
    env,
    envSettings: ENV_OVERRIDES,
    check: semanticProblems,
    build: withMachineDefaults,
  });
}
