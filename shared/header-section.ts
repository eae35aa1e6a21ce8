// Where a raw message's header section ends, found natively (Buffer.indexOf) so that a large body is never
// made a string for it: the submission's header edits and the DKIM signer both split a message there.

/**
 * Just past the LF that ends the first empty line (an LF after an LF, or after CR LF), where nodemailer's
 * MessageParser ends the header section; -1 when the message has no empty line.
 */
export function headerSectionEnd(raw: Buffer): number {
  const ends = [raw.indexOf('\n\n'), raw.indexOf('\n\r\n')].filter((i) => i !== -1).map((i) => i + (raw[i + 1] === 0x0a ? 2 : 3));
  return ends.length ? Math.min(...ends) : -1;
}
