// The header edits of a submitted message (mta/smtp/message-headers.ts): the header section is found without
// making the whole message a string, and the edits are those the whole-string search gave.
import t from 'tap';
import { canonicaliseHeaders } from '../mta/smtp/message-headers.js';

/** The split as the whole message made a latin1 string and searched with the same pattern gives it. */
function wholeStringSplit(raw: Buffer): { header: string; rest: Buffer } {
  const text = raw.toString('latin1');
  const match = /\r?\n\r?\n/.exec(text);
  if (!match) return { header: text, rest: Buffer.alloc(0) };
  return { header: text.slice(0, match.index), rest: raw.subarray(match.index + match[0].length) };
}

t.test('a message is split where its first empty line is, whatever its line breaks, and its body passes unchanged', async (t) => {
  let seed = 3;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const breaks = ['\r\n', '\n', '\r', '\r\n\r\n', '\n\n', '\n\r\n', '\r\n\n'];
  for (let i = 0; i < 500; i++) {
    const parts = [`Subject: s${i}`];
    for (let k = 0; k < 8; k++) parts.push(breaks[Math.floor(random() * breaks.length)]!, random() < 0.3 ? ' folded' : `X-H${k}: v`);
    const raw = Buffer.from(parts.join('') + (random() < 0.8 ? '\r\n\r\nbody\r\n.\r\n' : ''), 'latin1');
    const edited = canonicaliseHeaders(raw, () => '<new@id.test>');
    const { rest } = wholeStringSplit(raw);
    t.ok(edited.body.subarray(edited.body.length - rest.length).equals(rest), `message ${i}: the same rest, unchanged`);
    const header = edited.body.subarray(0, edited.body.length - rest.length).toString('latin1');
    t.ok(header.endsWith('\r\n\r\n') && header.includes('Subject: s'), `message ${i}: the edited header then an empty line`);
  }
});

t.test('Bcc is dropped, and Message-ID and Date are added when missing', async (t) => {
  const raw = Buffer.from('From: a@b.test\r\nBcc: hidden@c.test\r\nSubject: hi\r\n\r\nbody\r\n');
  const edited = canonicaliseHeaders(raw, () => '<made@b.test>');
  const text = edited.body.toString('latin1');
  t.notMatch(text, /Bcc:/);
  t.match(text, /^From: a@b\.test\r\nSubject: hi\r\nMessage-ID: <made@b\.test>\r\nDate: .+\r\n\r\nbody\r\n$/);
  t.equal(edited.messageIdHeader, '<made@b.test>');
});
