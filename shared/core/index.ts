// The application core: every use case the interfaces (HTTP /v2, SMTP submission, the CLI, later the
// dashboard) call. Built once per process from what the runtime opened. Interfaces import the core and
// the domain types it re-exports, never the store or the MTA's engines.
import type { Runtime } from '../runtime/runtime.js';
import type { Queue } from '../queue/queue.js';
import { Intake } from '../intake/intake.js';
import { DisposableFilter } from '../intake/disposable.js';
import { SenderAuthorization } from './sending/sender-authorization.js';
import { MessageSending } from './sending/send-message.js';
import { Idempotency } from './sending/idempotency.js';
import { DomainManagement } from './domains.js';
import { SendingKeys } from './sending-keys.js';
import { AdminKeys } from './admin-keys.js';
import { KeyListing } from './key-listing.js';
import { Teams } from './teams.js';
import { MediaLibrary } from './media.js';
import { TeamIcons } from './team-icons.js';
import { Webhooks } from './webhooks.js';
import { Suppressions } from './suppressions.js';
import { TeamSummaries } from './team-summary.js';
import { MessageLog } from './message-log.js';
import { Statistics } from './statistics.js';
import { AdminAuthenticator } from './admin-authentication.js';
import { SocialSignInSettings } from './social-sign-in-settings.js';
import { createIdentity, type Identity } from './identity/index.js';
import { DnsConnections } from './dns-connection.js';
import { DmarcCheck } from './dmarc/check.js';
import { WriteRates } from './write-rates.js';
import { SystemMail } from './system-mail.js';
import { EmailTemplates } from './email-templates.js';
import { contentBlockSource } from './content/block-source.js';
import { Branding } from './branding.js';
import { IntegrityScan } from './integrity-scan.js';
import { DnsInstructions } from './dns-instructions.js';
import { Invitations } from './identity/invitations.js';
import { PasswordResets } from './identity/password-resets.js';
import { MagicLinks } from './identity/magic-links.js';
import { Credits } from './credits.js';
import { LowBalanceAlerts } from './low-balance.js';
import { AuditLog } from './audit-log.js';
import { TeamAdministration } from './admin/teams.js';
import { DomainAdministration } from './admin/domains.js';
import { PlatformCredits } from './admin/credits.js';
import { PlatformInvitations } from './admin/invitations.js';
import { PlatformStatistics } from './admin/platform-statistics.js';
import { Billing } from './billing.js';
import { CardPayments } from './payments.js';
import type { CoreAdapters } from './ports/adapters.js';
import { QueueControl } from './queue-control.js';
import { DeliveryMaterial } from './delivery-material.js';
import { BodyHandOff } from '../intake/body-hand-off.js';
import { Health } from './health.js';
import { SiteHealth } from './site-health.js';
import { Onboarding } from './onboarding.js';
import { SupportTickets } from './support/tickets.js';
import { ResponseMail } from './support/response-mail.js';
import { SupportAttachments } from './support/attachments.js';
import { SupportWidgets } from './support/widgets.js';
import { SupportPortal } from './support/portal.js';
import { SupportForwarding } from './support/forwarding.js';
import type { Resolver } from 'node:dns/promises';
import { createResolver } from '../dns.js';
import { Posts } from './content/posts.js';
import { Templates } from './content/templates.js';
import { Terms } from './content/terms.js';
import { OEmbeds, UrlDetails } from './embeds/index.js';
import { contentLocalEmbeds } from './content/local-embeds.js';
import { MenuItems } from './content/menus.js';
import { FontLibrary } from './content/fonts.js';
import { GlobalStyles } from './content/global-styles.js';

export type { PageOf, PageRequest } from '../store/paging.js';
export type * from './identity/index.js';

/** The dashboard's identities (users, logins, sessions, nonces, application passwords, login security, access) come from Identity. */
export interface Core extends Identity {
  /** Admin keys and the team they act on. */
  readonly admins: AdminAuthenticator;
  /** Who may send, from which address, and how fast. */
  readonly senders: SenderAuthorization;
  /** Admitting and recording messages (the intake). */
  readonly sending: MessageSending;
  /** Idempotency-Key on sends: one run per key and team, its successful reply replayed for 24 hours. */
  readonly idempotency: Idempotency;
  readonly domains: DomainManagement;
  /** What the MTA reads to send a copy: the stored body and the sending domain. */
  readonly deliveryMaterial: DeliveryMaterial;
  readonly sendingKeys: SendingKeys;
  /** The account's admin keys as its owner makes and revokes them (the CLI's go through the same rules). */
  readonly adminKeys: AdminKeys;
  /** Sending and admin keys as one collection. */
  readonly keys: KeyListing;
  readonly teams: Teams;
  /** The icons accounts upload, kept in the database and served back by id. */
  readonly teamIcons: TeamIcons;
  readonly webhooks: Webhooks;
  readonly suppressions: Suppressions;
  readonly summaries: TeamSummaries;
  readonly messageLog: MessageLog;
  /** The dashboard's statistics: totals, time series, months, per domain. */
  readonly statistics: Statistics;
  /** Teams' DNS-provider connections (Cloudflare) and publishing their domains' records there. */
  readonly dnsConnections: DnsConnections;
  /** Mail Tern sends itself, through the intake. */
  readonly systemMail: SystemMail;
  readonly emailTemplates: EmailTemplates;
  /** The content namespace's items (announcements, docs pages) and their terms. */
  readonly posts: Posts;
  /** Block templates and template parts (wp/v2/templates, template-parts), named `tern//slug`. */
  readonly templates: Templates;
  readonly terms: Terms;
  /** The platform's menus' items (help menu, docs navigation). */
  readonly menuItems: MenuItems;
  /** The platform's font library (font families and their faces). */
  readonly fonts: FontLibrary;
  /** The platform's global styles of the theme (read-only). */
  readonly globalStyles: GlobalStyles;
  /** The operators' settings of sign-in with a provider (Google, GitHub). */
  readonly socialSignInSettings: SocialSignInSettings;
  readonly integrityScan: IntegrityScan;
  /** The sign-in page's branding (logo, colours, message) and its uploaded images. */
  readonly branding: Branding;
  /** The media library (wp/v2/media): teams' and the platform's uploaded files. */
  readonly media: MediaLibrary;
  /** Emailing a domain's DNS records to whoever runs its zone. */
  readonly dnsInstructions: DnsInstructions;
  /** Inviting dashboard users by mail, and accepting an invitation. */
  readonly invitations: Invitations;
  /** Forgot password: a link by mail that sets a new password once. */
  readonly passwordResets: PasswordResets;
  /** Magic-link sign-in: a single-use link by mail, for the users whose account allows it. */
  readonly magicLinks: MagicLinks;
  /** A domain's DMARC record read on demand: its tags, alignment, the record to publish next. */
  readonly dmarc: DmarcCheck;
  /** Balances, the credit ledger, transfers to teams, grants and removals by the platform. */
  readonly credits: Credits;
  /** The owners' mail when a balance falls below the threshold, once per crossing, or by hand. */
  readonly lowBalance: LowBalanceAlerts;
  /** How many changes per minute an account may make through /v2 and the dashboard. */
  readonly writeRates: WriteRates;
  /** Platform operators' actions, as they read them. */
  readonly auditLog: AuditLog;
  /** Every account and team as platform operators see and suspend them. */
  readonly adminTeams: TeamAdministration;
  /** Every team's sending domains as platform operators read and check them. */
  readonly adminDomains: DomainAdministration;
  /** The platform's credits: every grant and adjustment, operators' grants and removals, the summary. */
  readonly platformCredits: PlatformCredits;
  /** The platform's figures across teams (operators). */
  readonly platformStatistics: PlatformStatistics;
  /** Operators' invitations to open a new client account (accepted through `invitations`). */
  readonly platformInvitations: PlatformInvitations;
  /** Accounts' billing info and the invoices of their payments. */
  readonly billing: Billing;
  /** Card payments of credits through the configured provider (none offline). */
  readonly payments: CardPayments;
  /** Operators' view of the queue and their holds, releases, flushes and purges (also the CLI's). */
  readonly queueControl: QueueControl;
  /** Whether this process is ready: its store and Redis answer (the MTA adds its listeners); /readyz. */
  readonly health: Health;
  /** The operators' site health: Tern's own checks in WordPress's shape (wp-site-health/v1, /admin/site-health). */
  readonly siteHealth: SiteHealth;
  /** A new team's first steps (the Overview's checklist) and the SMTP settings its keys are used with. */
  readonly onboarding: Onboarding;
  /** Support tickets between an account's users and the platform's operators (the tern-support/v1 namespace). */
  readonly supportTickets: SupportTickets;
  /** Files attached to tickets, checked by content and kept in the database. */
  readonly supportAttachments: SupportAttachments;
  /** The account's context beside a ticket (plan, credits, sending, suppressions, queue). */
  readonly supportWidgets: SupportWidgets;
  /** The portal's form, the docs operators suggest, and where tickets go. */
  readonly supportPortal: SupportPortal;
  /** Forwards new tickets and responses to the external helpdesk (the API's dispatcher drains it). */
  readonly supportForwarding: SupportForwarding;
  /** oEmbed: the embeds of the site's own posts and pages, and the editors' proxy to other sites' (oembed/1.0). */
  readonly oembeds: OEmbeds;
  /** The block editor's url-details: title, icon, description and image of a page an editor links to. */
  readonly urlDetails: UrlDetails;
}

export { MTA_ADAPTERS, type ApiAdapters, type CoreAdapters, type MtaAdapters } from './ports/adapters.js';

/** `queue` is the process's one queue owner: the intake schedules what it records there. `adapters` are the
 * outside services the process owns (the API's payment and DNS providers; the MTA has none). */
/**
 * `deliversHere`: the process delivers what it accepts (the MTA), so the bodies it accepts are handed to its
 * deliveries in memory (intake/body-hand-off.ts); the API's are read from the store by an MTA.
 */
export function createCore(rt: Runtime, queue: Queue, adapters: CoreAdapters, { deliversHere = false } = {}): Core {
  const disposable = new DisposableFilter(rt.config.disposableDomains);
  const handOff = deliversHere ? new BodyHandOff() : null;
  const intake = new Intake(rt.store, queue, disposable, handOff);
  const domains = new DomainManagement(rt);
  const senders = new SenderAuthorization({ store: rt.store, redis: rt.redis, keyCache: rt.keyCache });
  const emailTemplates = new EmailTemplates(rt, contentBlockSource(rt.store));
  const systemMail = new SystemMail(rt, intake, emailTemplates);
  const identity = createIdentity(rt, Date.now, systemMail);
  const sendingKeys = new SendingKeys(rt);
  const adminKeys = new AdminKeys(rt);
  const credits = new Credits(rt);
  const lowBalance = new LowBalanceAlerts(rt, systemMail);
  const billing = new Billing(rt);
  return {
    admins: new AdminAuthenticator(rt),
    senders,
    sending: new MessageSending(senders, intake),
    idempotency: new Idempotency(rt),
    domains,
    sendingKeys,
    adminKeys,
    keys: new KeyListing({ sendingKeys, adminKeys }),
    teams: new Teams(rt),
    teamIcons: new TeamIcons(rt),
    webhooks: new Webhooks(rt),
    suppressions: new Suppressions(rt),
    summaries: new TeamSummaries(rt),
    messageLog: new MessageLog(rt, domains),
    statistics: new Statistics(rt, domains),
    ...identity,
    dnsConnections: new DnsConnections({ ...rt, providers: adapters.dnsProviders }),
    systemMail,
    emailTemplates,
    socialSignInSettings: new SocialSignInSettings(rt),
    integrityScan: new IntegrityScan({ store: rt.store, mail: systemMail }),
    ...contentParts(rt, uploadParts(rt)),
    dnsInstructions: new DnsInstructions(rt, domains, systemMail),
    invitations: new Invitations({ ...rt, now: Date.now }, systemMail, identity.sessions, identity.nonces),
    passwordResets: new PasswordResets({ ...rt, now: Date.now }, systemMail, identity.sessions),
    magicLinks: new MagicLinks({ ...rt, now: Date.now }, systemMail, identity.logins, identity.loginSecurity),
    dmarc: new DmarcCheck(rt),
    writeRates: new WriteRates(rt),
    credits,
    lowBalance,
    auditLog: new AuditLog(rt),
    adminTeams: new TeamAdministration(rt),
    adminDomains: new DomainAdministration(rt, domains),
    platformCredits: new PlatformCredits(rt, credits, lowBalance, billing),
    platformStatistics: new PlatformStatistics(rt),
    platformInvitations: new PlatformInvitations({ ...rt, now: Date.now }, systemMail),
    billing,
    payments: new CardPayments(rt, adapters.payments, billing),
    queueControl: new QueueControl({ store: rt.store, queue, disposable }),
    deliveryMaterial: new DeliveryMaterial(rt.store, rt.config, handOff),
    ...healthParts(rt, queue, systemMail),
    onboarding: new Onboarding(rt),
    ...outwardParts(rt, systemMail),
  };
}

/** The support namespace's use cases and the embeds': those that fetch or post to URLs users give share one resolver. */
function outwardParts(rt: Runtime, systemMail: SystemMail) {
  const resolver = createResolver(rt.config.dnsServers);
  return { ...supportParts(rt, systemMail, resolver), ...embedParts(rt, resolver) };
}

/**
 * oEmbed and url-details, which fetch pages users name through the product's resolver. The site's own posts and
 * pages come through a LocalEmbeds port, answered from the content store.
 */
function embedParts(rt: Runtime, resolver: Resolver): Pick<Core, 'oembeds' | 'urlDetails'> {
  return {
    oembeds: new OEmbeds({ config: rt.config, redis: rt.redis, resolver, local: contentLocalEmbeds(rt.store) }),
    urlDetails: new UrlDetails({ config: rt.config, redis: rt.redis, resolver }),
  };
}

/** The process's readiness, and the operators' site-health checks (readiness among them). */
function healthParts(rt: Runtime, queue: Queue, systemMail: SystemMail): Pick<Core, 'health' | 'siteHealth'> {
  const health = new Health(rt);
  // A probe: one quick try, so a resolver that does not answer is reported within the probe's time limit.
  const resolver = createResolver(rt.config.dnsServers, { timeoutMs: rt.config.health.probeTimeoutMs, tries: 1 });
  return { health, siteHealth: new SiteHealth({ config: rt.config, store: rt.store, queue, systemMail, health, resolver }) };
}

/** The use cases keeping files users upload: the sign-in page's branding images, the media library. */
const uploadParts = (rt: Runtime): Pick<Core, 'branding' | 'media'> => ({ branding: new Branding(rt), media: new MediaLibrary(rt) });

/** The support namespace's use cases: tickets, their attachments, the widgets beside them, the portal's settings. */
function supportParts(
  rt: Runtime,
  systemMail: SystemMail,
  resolver: Resolver,
): Pick<Core, 'supportTickets' | 'supportAttachments' | 'supportWidgets' | 'supportPortal' | 'supportForwarding'> {
  const supportTickets = new SupportTickets(rt, new ResponseMail(rt.config, systemMail));
  return {
    supportTickets,
    supportAttachments: new SupportAttachments({ ...rt, now: Date.now }, supportTickets),
    supportWidgets: new SupportWidgets(rt, supportTickets),
    supportPortal: new SupportPortal(rt),
    supportForwarding: new SupportForwarding({ ...rt, resolver }),
  };
}

/** The content namespace's use cases: items of the post types and terms of the taxonomies. */
const contentParts = <U>(rt: Runtime, uploads: U): Pick<Core, 'posts' | 'templates' | 'terms' | 'menuItems' | 'fonts' | 'globalStyles'> & U => {
  const posts = new Posts(rt);
  return {
    ...uploads,
    posts,
    templates: new Templates(rt),
    terms: new Terms(rt),
    menuItems: new MenuItems(rt, posts),
    fonts: new FontLibrary(rt),
    globalStyles: new GlobalStyles(rt),
  };
};
