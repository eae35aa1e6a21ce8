// The DMARC record parser: tags read with their defaults, unknown tags ignored, every broken tag named, and a
// record written back with a new policy keeping the other tags as written.
import t from 'tap';
import { isDmarcRecord, parseDmarcRecord, withPolicy } from '../shared/core/dmarc/record.js';

t.test('a minimal record gets the RFC 7489 defaults', async (t) => {
  const parsed = parseDmarcRecord('v=DMARC1; p=reject');
  t.ok(parsed.ok);
  if (parsed.ok) t.match(parsed.record, { p: 'reject', sp: 'reject', pct: 100, rua: [], ruf: [], adkim: 'r', aspf: 'r', fo: ['0'] });
});

t.test('every tag is read, whitespace around names and values ignored, keywords in any case', async (t) => {
  const parsed = parseDmarcRecord(
    ' v = DMARC1 ;P=Quarantine; sp=none ; pct=0; rua=mailto:a@x.example, mailto:b@y.example!2m; ruf=mailto:f@x.example; adkim=S; aspf=s; fo=1:d:s; ri=3600; rf=afrf;',
  );
  t.ok(parsed.ok, JSON.stringify(parsed));
  if (parsed.ok) {
    t.match(parsed.record, {
      p: 'quarantine',
      sp: 'none',
      pct: 0,
      rua: ['mailto:a@x.example', 'mailto:b@y.example!2m'],
      ruf: ['mailto:f@x.example'],
      adkim: 's',
      aspf: 's',
      fo: ['1', 'd', 's'],
    });
  }
});

t.test('unknown tags are ignored, as section 6.3 requires', async (t) => {
  t.ok(parseDmarcRecord('v=DMARC1; p=none; np=reject; future=1').ok);
});

t.test('each broken tag is named: a bad policy, pct out of range, a bad mode, a bad URI, a bad fo', async (t) => {
  const parsed = parseDmarcRecord('v=DMARC1; p=maybe; pct=101; aspf=x; rua=dmarc@example.com; fo=2');
  t.notOk(parsed.ok);
  if (!parsed.ok) t.match(parsed.problems, [/^p=maybe/, /^pct=101/, /^aspf=x/, /^rua=/, /^fo=2/]);
});

t.test('a record without v=DMARC1 first, without p, with a repeated tag or a stray word is invalid', async (t) => {
  const problems = (text: string) => {
    const parsed = parseDmarcRecord(text);
    return parsed.ok ? [] : parsed.problems;
  };
  t.match(problems('p=none; v=DMARC1'), [/begin with v=DMARC1/]);
  t.match(problems('v=dmarc1; p=none'), [/begin with v=DMARC1/], 'the version is case-sensitive');
  t.match(problems('v=DMARC1; rua=mailto:a@x.example'), [/p \(the policy\) is missing/]);
  t.match(problems('v=DMARC1; p=none; p=reject'), [/more than once/]);
  t.match(problems('v=DMARC1; p=none; hello'), [/not a tag=value pair/]);
});

t.test('only TXT strings beginning with v=DMARC1 are DMARC records', async (t) => {
  t.ok(isDmarcRecord('v=DMARC1; p=none'));
  t.ok(isDmarcRecord('v=DMARC1'));
  t.notOk(isDmarcRecord('v=DMARC10; p=none'));
  t.notOk(isDmarcRecord('google-site-verification=abc'));
  t.notOk(isDmarcRecord('v=spf1 -all'));
});

t.test('a record is written back with a new policy, its other tags as written', async (t) => {
  const parsed = parseDmarcRecord('v=DMARC1; rua=mailto:a@x.example; p=none; pct=50');
  t.ok(parsed.ok);
  if (parsed.ok) t.equal(withPolicy(parsed.record, 'quarantine'), 'v=DMARC1; p=quarantine; rua=mailto:a@x.example; pct=50');
});
