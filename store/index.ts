// The store: the only code that knows SQL. Everything else sees these repositories.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, type Sql } from './sqlite/sql.js';
import { migrate } from './sqlite/migrate.js';
import { AccountStore } from './sqlite/accounts.js';
import { DomainStore } from './sqlite/domains.js';
import { KeyStore } from './sqlite/keys.js';
import { WebhookStore } from './sqlite/webhooks.js';
import { SuppressionStore } from './sqlite/suppressions.js';
import { MessageStore } from './sqlite/messages.js';
import { QueueStore } from './sqlite/queue.js';
import { FeedbackStore } from './sqlite/feedback.js';

export interface Store {
  readonly sql: Sql;
  readonly accounts: AccountStore;
  readonly domains: DomainStore;
  readonly keys: KeyStore;
  readonly webhooks: WebhookStore;
  readonly suppressions: SuppressionStore;
  readonly messages: MessageStore;
  readonly queue: QueueStore;
  readonly feedback: FeedbackStore;
  close(): Promise<void>;
}

export async function openStore(dataDir: string): Promise<Store> {
  mkdirSync(dataDir, { recursive: true, mode: 0o750 });
  const sql = await openSqlite(join(dataDir, 'tern.db'));
  await migrate(sql);
  return {
    sql,
    accounts: new AccountStore(sql),
    domains: new DomainStore(sql),
    keys: new KeyStore(sql),
    webhooks: new WebhookStore(sql),
    suppressions: new SuppressionStore(sql),
    messages: new MessageStore(sql),
    queue: new QueueStore(sql),
    feedback: new FeedbackStore(sql),
    close: () => sql.close(),
  };
}

export type { Team, Suspension, SuspensionDetail } from './sqlite/accounts.js';
export type { Domain } from './sqlite/domains.js';
export type { KeyRecord } from './sqlite/keys.js';
export type { Webhook } from './sqlite/webhooks.js';
export type { Suppression } from './sqlite/suppressions.js';
export type { WebhookChange, WebhookFields, WebhookEvent, WebhookStatus } from './sqlite/webhooks.js';
export type { SuppressionQuery, SuppressionStatus } from './sqlite/suppressions.js';
export type { PageOf, PageRequest } from './paging.js';
export type { MessageRow, RecipientRow, AttemptRow } from './sqlite/messages.js';
export { WEBHOOK_EVENTS } from './sqlite/webhooks.js';
export { SUPPRESSION_STATUSES } from './sqlite/suppressions.js';
