// DKIM signing (RSA-SHA256, relaxed/relaxed) with the From domain's key.
//
// Canonicalisation is nodemailer's (its MessageParser, RelaxedBody and relaxedHeaders). Only the RSA
// step is ours: nodemailer's DKIM signs with the synchronous crypto.createSign and parses the PEM on
// every call, 1.4-2 ms per 2048-bit signature on the 2-core reference box, all on the event loop.
// Here the key is parsed once into a KeyObject and crypto.sign runs with a callback on the libuv
// thread pool (about 0.3 ms there), so the event loop only hashes the body.
import { createHash, createPrivateKey, sign as rsaSign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import MessageParser, { type MessageParserHeaderLine } from 'nodemailer/lib/dkim/message-parser';
import RelaxedBody from 'nodemailer/lib/dkim/relaxed-body';
import nodemailerSign from 'nodemailer/lib/dkim/sign';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import { normalizeDomain } from 'nodemailer/lib/shared';
import type { SecretBox } from '../../shared/secret-box.js';
import { headerSectionEnd } from '../../shared/header-section.js';

export interface DkimKey {
  domain: string;
  selector: string;
  privateKeyPem: string;
}

/**
 * Header fields signed when present (RFC 6376 §5.4.1's list). List-Unsubscribe-Post is added:
 * RFC 8058 §4 requires it and List-Unsubscribe to be covered for one-click unsubscribe.
 */
export const SIGNED_HEADER_FIELDS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-ID',
  'Content-Description',
  'Resent-Date',
  'Resent-From',
  'Resent-Sender',
  'Resent-To',
  'Resent-Cc',
  'Resent-Message-ID',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
].join(':');

// Bodies are hashed in slices, yielding between them, so a large message does not hold the loop
// (nodemailer's relaxed body hash runs at roughly 50 MB/s: about 1 ms per slice).
const BODY_SLICE = 64 * 1024;
const MAX_PARSED_KEYS = 1000;

const signAsync = promisify(rsaSign);
const parsedKeys = new Map<string, KeyObject[]>();
let nextCopy = 0;

/**
 * PEM parsing costs more than the signature itself, so each key is parsed once, into a few copies: a
 * KeyObject is locked while a thread-pool thread signs with it, and concurrent signatures with one copy
 * queue on that lock (the event loop too, when it hands the next one over).
 */
const KEY_COPIES = 4;

function keyObject(pem: string): KeyObject {
  let copies = parsedKeys.get(pem);
  if (!copies) {
    copies = Array.from({ length: KEY_COPIES }, () => createPrivateKey(pem));
    if (parsedKeys.size >= MAX_PARSED_KEYS) parsedKeys.delete(parsedKeys.keys().next().value as string);
    parsedKeys.set(pem, copies);
  }
  nextCopy = (nextCopy + 1) % KEY_COPIES;
  return copies[nextCopy]!;
}

/**
 * The parsed header lines and the relaxed body hash, in one pass through nodemailer's parsers. The body is
 * written straight into them, a slice at a time with a turn of the event loop between slices, so a large
 * body does not hold the loop. (Not stream.pipeline: it makes an AbortController per call and aborts it at
 * the end, building a DOMException with a stack trace, which cost more than hashing a 1 KB body.)
 */
function parsedWithNodemailer(raw: Buffer): Promise<{ headers: MessageParserHeaderLine[]; bodyHash: string }> {
  return new Promise((resolve, reject) => {
    const parser = new MessageParser();
    const body = new RelaxedBody({ hashAlgo: 'sha256' });
    let headers: MessageParserHeaderLine[] = [];
    parser.on('headers', (value: MessageParserHeaderLine[]) => (headers = value));
    body.on('hash', (bodyHash: string) => resolve({ headers, bodyHash }));
    parser.once('error', reject);
    body.once('error', reject);
    parser.pipe(body).resume();
    const writeFrom = (at: number): void => {
      parser.write(raw.subarray(at, at + BODY_SLICE));
      if (at + BODY_SLICE < raw.length) setImmediate(writeFrom, at + BODY_SLICE);
      else parser.end();
    };
    writeFrom(0);
  });
}

/**
 * The header lines and the relaxed body hash. Most bodies are hashed natively (plainRelaxedBodyHash): the
 * header section alone goes through nodemailer's parser. Any other body, and a message without an empty line
 * ending its header, go through nodemailer's parsers whole.
 */
async function headersAndBodyHash(raw: Buffer): Promise<{ headers: MessageParserHeaderLine[]; bodyHash: string }> {
  const end = headerSectionEnd(raw);
  const bodyHash = end === -1 ? null : plainRelaxedBodyHash(raw.subarray(end));
  if (bodyHash === null) return parsedWithNodemailer(raw);
  const { headers } = await parsedWithNodemailer(raw.subarray(0, end));
  return { headers, bodyHash };
}

/** Bodies hashed natively at most this big; a larger one is hashed in slices that let the loop turn. */
const MOST_HASHED_AT_ONCE = 4 * 1024 * 1024;

/**
 * What relaxed canonicalisation would change inside a body: a tab, a run of spaces, a space before CR, a CR not
 * followed by LF, an LF not after CR. One scan of the body as a latin1 string (every byte one character) costs a
 * third of a Buffer.indexOf walk line by line.
 */
const CHANGED_BY_RELAXING = /\t| {2}| \r|\r(?!\n)|(?<!\r)\n/;
const CR = 0x0d;
const LF = 0x0a;

/**
 * The relaxed body hash (RFC 6376 §3.4.4, as nodemailer's RelaxedBody computes it) of a body relaxed
 * canonicalisation leaves as it is but for the empty lines at its end and a missing final CRLF: no tab, no run of
 * spaces, no space before a line break or at the end, CRLF line breaks only. Those are found and hashed by
 * native code (one regular-expression scan, one SHA-256 update) instead of nodemailer's byte loop, which was a tenth of the
 * MTA's event loop at 100 KB. Null for any other body, which nodemailer's RelaxedBody hashes.
 */
export function plainRelaxedBodyHash(body: Buffer): string | null {
  if (body.length > MOST_HASHED_AT_ONCE) return null;
  const last = body[body.length - 1];
  if (last === 0x20 || CHANGED_BY_RELAXING.test(body.toString('latin1'))) return null;
  // Empty lines at the end are ignored: drop each CRLF that ends an empty line (one after a CRLF, or at the start).
  let end = body.length;
  const crlfAt = (i: number) => i >= 0 && body[i] === CR && body[i + 1] === LF;
  while (crlfAt(end - 2) && (end === 2 || crlfAt(end - 4))) end -= 2;
  const hash = createHash('sha256').update(body.subarray(0, end));
  if (end > 0 && !crlfAt(end - 2)) hash.update('\r\n'); // a non-empty body ends with CRLF
  return hash.digest('base64');
}

// Our tag values come from the domains table, but a stray delimiter would still open a new tag.
function checkTagValue(name: string, value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a tag value may not hold
  if (!value || /[\x00-\x20\x7f;=]/.test(value)) throw new Error(`invalid DKIM ${name}: ${JSON.stringify(value)}`);
  return value;
}

/** The DKIM-Signature field up to and including the empty `b=`, folded as nodemailer folds it. */
function unsignedField(key: DkimKey, fieldNames: string, bodyHash: string): string {
  const tags = [
    'v=1',
    'a=rsa-sha256',
    'c=relaxed/relaxed',
    `d=${checkTagValue('domain', normalizeDomain(key.domain, false))}`,
    'q=dns/txt',
    `s=${checkTagValue('selector', key.selector)}`,
    `bh=${bodyHash}`,
    `h=${fieldNames}`,
  ];
  return `${foldLines(`DKIM-Signature: ${tags.join('; ')}`, 76)};\r\n b=`;
}

/** The signature field itself is canonicalised like the others, without its trailing CRLF (RFC 6376 §3.7). */
function relaxedSignatureField(field: string): string {
  return nodemailerSign.relaxedHeaders([{ key: 'dkim-signature', line: field }], 'dkim-signature').headers.replace(/\r\n$/, '');
}

const foldSignature = (b64: string): string => b64.replace(/(^.{73}|.{75}(?!\r?\n|\r))/g, '$&\r\n ').trim();

/** The message with a DKIM-Signature field prepended; the original bytes follow unchanged. */
export async function signMessage(raw: Buffer, key: DkimKey): Promise<Buffer> {
  const privateKey = keyObject(key.privateKeyPem);
  const { headers, bodyHash } = await headersAndBodyHash(raw);
  const signed = nodemailerSign.relaxedHeaders(headers, SIGNED_HEADER_FIELDS);
  const field = unsignedField(key, signed.fieldNames, bodyHash);
  // the header lines are 'binary' strings: latin1 gives back the original bytes
  const data = Buffer.from(signed.headers + relaxedSignatureField(field), 'latin1');
  const signature = await signAsync('sha256', data, privateKey);
  return Buffer.concat([Buffer.from(`${field}${foldSignature(signature.toString('base64'))}\r\n`, 'latin1'), raw]);
}

/** The sealed fields of a domain that DkimKeyCache reads (a subset of store's Domain). */
export interface SealedDkimDomain {
  id: string;
  name: string;
  dkimSelector: string;
  dkimPrivateKeyEnc: string;
}

/**
 * Opened DKIM private keys by domain id, so SecretBox runs once per key, not once per message.
 * The sealed text is kept beside the PEM: a rotated key (new ciphertext) is opened again.
 */
export class DkimKeyCache {
  private readonly entries = new Map<string, { sealed: string; pem: string }>();
  private readonly maxEntries: number;

  constructor(
    private readonly box: SecretBox,
    options: { maxEntries?: number } = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  privateKeyPem(domain: Pick<SealedDkimDomain, 'id' | 'dkimPrivateKeyEnc'>): string {
    const hit = this.entries.get(domain.id);
    if (hit?.sealed === domain.dkimPrivateKeyEnc) return hit.pem;
    const pem = this.box.open(domain.dkimPrivateKeyEnc);
    this.remember(domain.id, { sealed: domain.dkimPrivateKeyEnc, pem });
    return pem;
  }

  /** The signing key for a domain row, ready for signMessage. */
  keyFor(domain: SealedDkimDomain): DkimKey {
    return { domain: domain.name, selector: domain.dkimSelector, privateKeyPem: this.privateKeyPem(domain) };
  }

  forget(domainId: string): void {
    this.entries.delete(domainId);
  }

  private remember(id: string, entry: { sealed: string; pem: string }): void {
    this.entries.delete(id);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, entry);
  }
}
