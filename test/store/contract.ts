// The repository contract: what every store engine must do, checked through the Store interfaces and
// StoreTestSupport only (no SQL, nothing of store/sqlite), so that a second engine runs it unchanged.
import type { Test } from 'tap';
import type { ContractEngine } from './contract/fixtures.js';
import { accountsContract } from './contract/accounts.js';
import { domainsContract } from './contract/domains.js';
import { keysContract } from './contract/keys.js';
import { webhooksContract } from './contract/webhooks.js';
import { suppressionsContract } from './contract/suppressions.js';
import { messageLogContract } from './contract/message-log.js';
import { feedbackContract } from './contract/feedback.js';

export type { ContractEngine } from './contract/fixtures.js';

export function runRepositoryContract(t: Test, engine: ContractEngine): void {
  for (const [name, contract] of [
    ['accounts and teams', accountsContract],
    ['domains', domainsContract],
    ['keys', keysContract],
    ['webhooks', webhooksContract],
    ['suppressions', suppressionsContract],
    ['message log', messageLogContract],
    ['feedback', feedbackContract],
  ] as const) {
    t.test(`${engine.name}: ${name}`, async (t) => contract(t, engine));
  }
}
