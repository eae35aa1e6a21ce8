// Every CSV Tern writes goes through here: csv-stringify with its cast hook neutralising spreadsheet formulas.
// A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is one a spreadsheet may run as a formula
// (OWASP, CSV injection); such a text cell gets a single quote in front, which spreadsheets show as text. The
// exported value then differs from the stored one on purpose (docs/decisions.md, issue 22 item 3).
import { stringify, type Options, type Stringifier } from 'csv-stringify';

const FORMULA_START = /^[=+\-@\t\r]/;

/** The text as a spreadsheet should show it: quoted when a spreadsheet could take it for a formula. */
export const neutralisedCell = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

/**
 * A csv-stringify stream with formulas neutralised in every text cell. Only text: numbers, dates and booleans are
 * Tern's own values, written as they are.
 */
export function csvStringifier(options: Omit<Options, 'cast'>): Stringifier {
  return stringify({ ...options, cast: { string: neutralisedCell } });
}
