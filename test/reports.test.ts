// The report parser over a corpus of real-world-shaped reports: RFC 3464 DSNs (Gmail, Outlook and Exchange
// NDRs, Postfix, Sendmail), non-standard text bounces (Exim, qmail, Yahoo), RFC 5965 complaints (Yahoo,
// AOL, Microsoft JMRP), and what is not a report at all. Hard or soft is decided through classify, as the
// report worker does.
import t, { type Test } from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addressField, fieldGroups, parseFields, parseReport, type ParsedReport } from '../mta/feedback/reports.js';
import { classifyReply } from '../mta/replies/classify.js';
import { loadReplyRules } from '../shared/policies/smtp-replies.js';

const shipped = loadReplyRules();

const FIXTURES = join(import.meta.dirname, 'fixtures', 'reports');
const VERP = 'bounces+2s-5f1c0a9e3b7d24c6e8a1@send.example.com';
const MESSAGE_ID = '<0m5xk2p9qa1b2c3d4e5f6a7b8@example.com>';

type Expected =
  | { kind: 'bounce'; format: 'dsn' | 'text'; status: string | null; code: number; finalRecipient: string; hard: boolean; permanent: boolean; recipients?: number }
  | { kind: 'delay'; action: string; status: string | null }
  | { kind: 'complaint'; feedbackType: string; verp?: string; originalMessageId?: string; originalRcpt?: string }
  | { kind: 'unknown'; reason: RegExp };

const CASES: Record<string, Expected> = {
  'gmail-5.1.1.eml': { kind: 'bounce', format: 'dsn', status: '5.1.1', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'gmail-5.2.2-over-quota.eml': { kind: 'bounce', format: 'dsn', status: '5.2.2', code: 552, finalRecipient: 'bob@dest.test', hard: false, permanent: true },
  'outlook-ndr-5.1.10.eml': { kind: 'bounce', format: 'dsn', status: '5.1.10', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'outlook-com-5.5.0.eml': { kind: 'bounce', format: 'dsn', status: '5.5.0', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'exchange-2016-5.2.2-quota.eml': { kind: 'bounce', format: 'dsn', status: '5.2.2', code: 554, finalRecipient: 'bob@dest.test', hard: false, permanent: true },
  'postfix-5.1.1.eml': { kind: 'bounce', format: 'dsn', status: '5.1.1', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'sendmail-several-recipients.eml': {
    kind: 'bounce',
    format: 'dsn',
    status: '5.1.1',
    code: 550,
    finalRecipient: 'bob@dest.test',
    hard: true,
    permanent: true,
    recipients: 2,
  },
  'postfix-4.7.1-failed.eml': { kind: 'bounce', format: 'dsn', status: '4.7.1', code: 451, finalRecipient: 'bob@dest.test', hard: false, permanent: false },
  'postfix-delayed.eml': { kind: 'delay', action: 'delayed', status: '4.4.1' },
  'exim-text-5.1.1.eml': { kind: 'bounce', format: 'text', status: '5.1.1', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'exim-delay-warning.eml': { kind: 'delay', action: 'delayed', status: null },
  'qmail-text-5.1.1.eml': { kind: 'bounce', format: 'text', status: '5.1.1', code: 550, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'yahoo-text-554.eml': { kind: 'bounce', format: 'text', status: null, code: 554, finalRecipient: 'bob@dest.test', hard: true, permanent: true },
  'yahoo-arf-abuse.eml': { kind: 'complaint', feedbackType: 'abuse', verp: VERP, originalMessageId: MESSAGE_ID, originalRcpt: 'bob@dest.test' },
  'aol-arf-headers-only.eml': { kind: 'complaint', feedbackType: 'abuse', originalMessageId: MESSAGE_ID },
  'microsoft-jmrp-abuse.eml': { kind: 'complaint', feedbackType: 'abuse', verp: VERP, originalMessageId: MESSAGE_ID, originalRcpt: 'bob@dest.test' },
  'dmarc-forensic-auth-failure.eml': { kind: 'unknown', reason: /auth-failure is not a complaint/ },
  'vacation-auto-reply.eml': { kind: 'unknown', reason: /automatic reply/ },
  'read-receipt-mdn.eml': { kind: 'unknown', reason: /disposition-notification/ },
};

function check(t: Test, got: ParsedReport, want: Expected): void {
  t.equal(got.kind, want.kind, 'kind');
  if (got.kind === 'bounce' && want.kind === 'bounce') {
    const c = classifyReply(got.reply, shipped);
    t.match(got, { format: want.format, action: 'failed', status: want.status, finalRecipient: want.finalRecipient, permanent: want.permanent });
    t.equal(got.reply.code, want.code, 'reply code');
    t.equal(want.permanent && c.result === 'bounced' && c.hard, want.hard, `hard or soft through classify (${c.rule})`);
    t.equal(got.recipients.length, want.recipients ?? 1, 'per-recipient blocks');
  } else if (got.kind === 'delay' && want.kind === 'delay') {
    t.match(got, { action: want.action, status: want.status });
  } else if (got.kind === 'complaint' && want.kind === 'complaint') {
    t.same(
      { feedbackType: got.feedbackType, verp: got.verp, originalMessageId: got.originalMessageId, originalRcpt: got.originalRcpt },
      {
        feedbackType: want.feedbackType,
        verp: want.verp,
        originalMessageId: want.originalMessageId,
        originalRcpt: want.originalRcpt,
      },
    );
  } else if (got.kind === 'unknown' && want.kind === 'unknown') {
    t.match(got.reason, want.reason);
  }
}

t.test('every fixture report parses to its expected kind, status, action, final recipient and hard or soft', async (t) => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.eml'))
    .sort();
  t.ok(files.length >= 12, `${files.length} fixtures`);
  t.same(files, Object.keys(CASES).sort(), 'every fixture has an expectation, and every expectation a fixture');
  for (const file of files) {
    await t.test(file, async (t) => check(t, await parseReport(readFileSync(join(FIXTURES, file))), CASES[file]!));
  }
});

t.test('the same reports with CRLF line endings (as they arrive over SMTP) parse the same way', async (t) => {
  for (const file of ['gmail-5.1.1.eml', 'exim-text-5.1.1.eml', 'yahoo-arf-abuse.eml', 'postfix-4.7.1-failed.eml']) {
    const lf = readFileSync(join(FIXTURES, file), 'utf8');
    check(t, await parseReport(Buffer.from(lf.replace(/\r?\n/g, '\r\n'))), CASES[file]!);
  }
});

t.test('delivery-status fields are unfolded and read per block, names case-insensitive', async (t) => {
  const groups = fieldGroups(
    'Reporting-MTA: dns; mx.example\r\n\r\nFINAL-RECIPIENT: RFC822; <a@b.test>\r\nAction: failed\r\nDiagnostic-Code: smtp; 550-5.1.1 first\r\n 550 5.1.1 second\r\n\r\n  \r\nAction: delayed\r\n',
  );
  t.equal(groups.length, 3);
  t.same(groups[1]!.get('diagnostic-code'), ['smtp; 550-5.1.1 first 550 5.1.1 second']);
  t.equal(addressField(groups[1]!.get('final-recipient')![0]!), 'a@b.test');
  t.same(parseFields('Original-Rcpt-To: a@b.test\nOriginal-Rcpt-To: c@d.test\nnot a field\n').get('original-rcpt-to'), ['a@b.test', 'c@d.test']);
  t.equal(addressField('rfc822;bob@dest.test (Bob)'), 'bob@dest.test');
  t.equal(addressField(''), null);
});

t.test('a report with no per-recipient Action, or one that is no mail at all, is unknown rather than an error', async (t) => {
  const noAction = [
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
    '',
    '--b',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example',
    '',
    '--b--',
    '',
  ].join('\r\n');
  t.match(await parseReport(Buffer.from(noAction)), { kind: 'unknown', reason: /without a per-recipient Action/ });
  t.match(await parseReport(Buffer.from('just some text without any reply code\r\n')), { kind: 'unknown' });
  t.match(await parseReport(Buffer.alloc(0)), { kind: 'unknown' });
});
