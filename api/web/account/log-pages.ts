// The pages of the Logs and Suppressions sections, listed once for web/index.ts.
import { LOG_LIST_PAGES } from './logs.js';
import { MESSAGE_PAGES } from './message.js';
import { SUPPRESSION_PAGES } from './suppressions.js';

export const LOG_PAGES = [...LOG_LIST_PAGES, ...MESSAGE_PAGES, ...SUPPRESSION_PAGES];
