// Files attached to tickets: the type decided by the content (a maintained detector; plain text when the bytes
// are UTF-8 text with no control characters), never by the name or a declared type; only the configured types,
// at most the configured size; kept in the database (every API process serves them, a backup holds them), bound
// to the ticket or response they were sent with, and downloaded only by those who may see that ticket.
import { fileTypeFromBuffer } from 'file-type';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { Attachment } from '../../domain/support.js';
import { done, notFound, refuse, type Managed } from '../management-refusals.js';
import { mayChange, userIdOf, type SupportParty } from './party.js';
import type { SupportTickets } from './tickets.js';

export interface AttachmentDeps {
  config: Config;
  store: Store;
  now: () => number;
}

/** Tab, line feed and carriage return are text; any other control character (NUL above all) is not. */
const TEXT_CONTROLS = new Set([9, 10, 13]);
const isControl = (code: number): boolean => (code < 32 && !TEXT_CONTROLS.has(code)) || code === 127;
const hasControl = (text: string): boolean => [...text].some((ch) => isControl(ch.codePointAt(0)!));

/** The content's type, as its bytes say. */
export async function detectedType(content: Buffer): Promise<string | undefined> {
  const found = await fileTypeFromBuffer(content);
  if (found) return found.mime;
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return hasControl(text.decode(content)) ? undefined : 'text/plain';
  } catch {
    return undefined;
  }
}

/** A name safe to keep and to send back in Content-Disposition: its last path part, printable, at most 200 characters. */
export function safeFileName(given: string): string {
  const base = given.split(/[\\/]/).pop() ?? '';
  const clean = [...base]
    .filter((ch) => ch !== '"' && ch.codePointAt(0)! >= 32 && ch.codePointAt(0)! !== 127)
    .join('')
    .trim()
    .slice(0, 200);
  return clean === '' || clean === '.' || clean === '..' ? 'attachment' : clean;
}

/**
 * Deletes the uploads nobody sent, a day (by default) after they were uploaded: a file is bound in the write
 * that sends it, and this DELETE takes only rows still bound to nothing, so a file being sent is either bound
 * first (and kept) or already gone (and the send is refused as naming an unknown attachment).
 */
export async function sweepUnsentUploads(d: AttachmentDeps, log: Logger): Promise<number> {
  const hours = d.config.support.attachments.unsentKeepHours;
  const removed = await d.store.support.removeUnsent(new Date(d.now() - hours * 3_600_000).toISOString());
  if (removed) log.info({ removed, hours }, 'unsent support uploads deleted');
  return removed;
}

export class SupportAttachments {
  constructor(
    private readonly d: AttachmentDeps,
    private readonly tickets: SupportTickets,
  ) {}

  /** The largest file accepted, in bytes (an interface stops reading an upload past it). */
  get maxBytes(): number {
    return this.d.config.support.attachments.maxBytes;
  }

  /** Whether the party may upload at all: asked before the file is read, so a refused caller's upload is not taken in. */
  admits(party: SupportParty): Managed<void> {
    return mayChange(party);
  }

  /** Keeps an uploaded file for the party's next ticket or response, if its content is of an allowed type. */
  async upload(party: SupportParty, fileName: string, content: Buffer, log: Logger): Promise<Managed<Attachment>> {
    const allowed = mayChange(party);
    if (!allowed.ok) return allowed;
    if (content.length === 0) return refuse({ kind: 'invalid_field', field: 'file', message: 'file must not be empty' });
    if (content.length > this.maxBytes) return refuse({ kind: 'invalid_field', field: 'file', message: `file must be at most ${this.maxBytes} bytes` });
    const types = this.d.config.support.attachments.types;
    const type = await detectedType(content);
    if (!type || !types.includes(type)) {
      return refuse({ kind: 'invalid_field', field: 'file', message: `file must be one of: ${types.join(', ')} (its content is ${type ?? 'of no known type'})` });
    }
    const attachment = await this.d.store.support.addAttachment({ uploadedBy: userIdOf(party), fileName: safeFileName(fileName), contentType: type, content });
    log.info({ attachment: attachment.id, type, bytes: content.length }, 'support attachment uploaded');
    return done(attachment);
  }

  /** Deletes the uploads nobody sent (sweepUnsentUploads). */
  sweepUnsent(log: Logger): Promise<number> {
    return sweepUnsentUploads(this.d, log);
  }

  /** An attachment of a ticket the party may see, with its bytes. */
  async download(party: SupportParty, ticketId: number, attachmentId: number): Promise<Managed<{ attachment: Attachment; content: Buffer }>> {
    const ticket = await this.tickets.find(party, ticketId);
    if (!ticket.ok) return ticket;
    const found = await this.d.store.support.attachmentContent(ticketId, attachmentId);
    return found ? done(found) : notFound('support_attachment', 'Invalid attachment ID.');
  }
}
