// Small edits to a received message's header section, done on the raw bytes so that every other header
// (List-Unsubscribe included) passes through byte for byte: drop Bcc, add Message-ID and Date when missing.
import { headerSectionEnd } from '../../shared/header-section.js';

const HEADER_END = /\r?\n\r?\n/;

export interface HeaderEdit {
  body: Buffer;
  messageIdHeader: string;
}

/**
 * The text HEADER_END's first match lies in: up to the end of the header section (found natively), so that a
 * large body is not made a string only to find where the header ends; the whole message when there is none.
 */
function headerWindow(raw: Buffer): string {
  const end = headerSectionEnd(raw);
  return raw.toString('latin1', 0, end === -1 ? raw.length : end);
}

/** Splits the raw message into header lines (each with its folded continuation lines) and the rest. */
function splitHeader(raw: Buffer): { lines: string[]; rest: Buffer } {
  const text = headerWindow(raw);
  const match = HEADER_END.exec(text);
  const headerEnd = match ? match.index : text.length;
  const header = text.slice(0, headerEnd);
  const lines: string[] = [];
  for (const line of header.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && lines.length) lines[lines.length - 1] += `\r\n${line}`;
    else if (line) lines.push(line);
  }
  const rest = match ? raw.subarray(Buffer.byteLength(text.slice(0, headerEnd + match[0].length), 'latin1')) : Buffer.alloc(0);
  return { lines, rest };
}

const nameOf = (line: string): string => line.slice(0, line.indexOf(':')).trim().toLowerCase();

export function canonicaliseHeaders(raw: Buffer, newMessageId: () => string): HeaderEdit {
  const { lines, rest } = splitHeader(raw);
  const kept = lines.filter((l) => nameOf(l) !== 'bcc');
  const existingId = kept.find((l) => nameOf(l) === 'message-id');
  const messageIdHeader = existingId
    ? existingId
        .slice(existingId.indexOf(':') + 1)
        .replace(/\s+/g, ' ')
        .trim()
    : newMessageId();
  const added: string[] = [];
  if (!existingId) added.push(`Message-ID: ${messageIdHeader}`);
  if (!kept.some((l) => nameOf(l) === 'date')) added.push(`Date: ${new Date().toUTCString().replace('GMT', '+0000')}`);
  const header = [...kept, ...added].join('\r\n');
  return { body: Buffer.concat([Buffer.from(`${header}\r\n\r\n`, 'latin1'), rest]), messageIdHeader };
}
