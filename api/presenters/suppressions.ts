// A suppression entry as every interface shows it: the item /v2 and the dashboard list, and the CSV export the
// dashboard's GET /suppressions/export and the Suppressions page stream (one presenter, so the two exports
// cannot drift apart).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvStringifier } from '../../shared/csv.js';
import type { Suppression } from '../../shared/domain/suppression.js';

/** An entry as /v2 lists it (shared with the dashboard's /suppressions and the columns of its CSV export). */
export const suppressionItem = (s: Suppression) => ({ email: s.email, status: s.status, reason: s.reason, message_id: s.messageId, created_at: s.createdAt });

/** The CSV's columns, in order: the header row and each entry's fields (suppressionItem's). */
export const EXPORT_COLUMNS = ['email', 'status', 'reason', 'message_id', 'created_at'] as const;

async function* records(entries: AsyncIterable<Suppression>) {
  for await (const entry of entries) yield suppressionItem(entry);
}

/** The entries as CSV: csv-stringify fed by the store's walk, pulled only as fast as the answer is read (the web page's export too). */
export function csvOf(entries: AsyncIterable<Suppression>): Readable {
  // RFC 4180: CRLF between records, and any field holding a line break quoted (a lone LF included); formulas
  // neutralised (shared/csv.ts).
  const csv = csvStringifier({ header: true, columns: [...EXPORT_COLUMNS], record_delimiter: 'windows', quoted_match: /[\r\n]/ });
  // A failure of the walk destroys csv, which cuts the answer short (sendStream logs it): nothing to add here.
  pipeline(Readable.from(records(entries)), csv).catch(() => undefined);
  return csv;
}
