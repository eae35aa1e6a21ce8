// The contract of the inbound reports (FeedbackRepository): recorded with their bodies before the MX listener's
// 250, claimed by the report workers of several MTAs under a lease token, finished fenced on the token (the body
// dropped then), a lease run out taken over; and the reports an earlier release recorded with their body in a
// file spool, given that body at the MTA's start.
import { at, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { InboundReport, ReportVerdict } from '../../../shared/domain/feedback.js';

const applied: ReportVerdict = { state: 'processed', kind: 'bounce', detail: 'applied' };

const reportNo = (n: number): InboundReport => ({ id: `rep${String(n).padStart(3, '0')}`, mailFrom: '', rcptTo: `bounces+${n}@send.one.test` });

/** `count` reports, one recording each (a moment apart, so that their order is their arrival), each body naming its report. */
async function reportsOf(store: Store, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n++) {
    const report = reportNo(n);
    await store.feedback.addReports([report], Buffer.from(`body of ${report.id}`));
    ids.push(report.id);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return ids;
}

const idsOf = async (claimed: Promise<InboundReport[]>): Promise<string[]> => (await claimed).map((r) => r.id);

export const inboundReportChecks: ContractCheck[] = [
  check('reports of one message are recorded with its body, wait oldest first, and keep the body until finished', async (t, engine) => {
    const { store } = await engine.open(t);
    const body = Buffer.from('Content-Type: multipart/report\r\n\r\n\u0000\u00ff binary too\r\n', 'latin1');
    const first = { id: 'rep1', mailFrom: '', rcptTo: 'bounces+abc@send.one.test' };
    const second = { id: 'rep2', mailFrom: '', rcptTo: 'bounces+def@send.one.test' };
    await store.feedback.addReports([first, second], body);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = { id: 'rep0', mailFrom: 'fbl@isp.test', rcptTo: 'fbl@mx.tern.test' };
    await store.feedback.addReports([later], Buffer.from('an ARF report'));
    t.same(await store.feedback.waitingReports(10), [first, second, later], 'by arrival, not by id');
    t.same(await idsOf(store.feedback.waitingReports(1)), ['rep1']);
    t.same(await store.feedback.reportBody('rep2'), body, 'each recipient’s report has the body, byte for byte');
    const now = Date.parse(at(0));
    t.same(await store.feedback.claimReports(10, now, now + 60_000, 'a'), [first, second, later], 'claimed oldest first');
    t.same(await store.feedback.reportBody('rep1'), body, 'a claimed report keeps its body');
    t.equal(await store.feedback.finishReport('rep1', 'a', applied), true);
    t.equal(await store.feedback.reportBody('rep1'), null, 'a finished report’s body is dropped');
    t.equal(await store.feedback.finishReport('rep2', 'a', { state: 'dropped', kind: 'unknown', detail: 'not a report' }), true);
    t.equal(await store.feedback.reportBody('rep2'), null, 'and a dropped one’s');
    t.same(await store.feedback.waitingReports(10), [later]);
    t.same(await store.feedback.reportBody('rep0'), Buffer.from('an ARF report'), 'the other message’s body is untouched');
    t.equal(await store.feedback.reportBody('nope'), null, 'an unknown report has none');
  }),

  check('a claim leases reports to one worker until its lease runs out; a claim taken over fences out the old holder', async (t, engine) => {
    const { store } = await engine.open(t);
    const [first, second, third] = await reportsOf(store, 3);
    const now = Date.parse(at(0));
    t.same(await idsOf(store.feedback.claimReports(2, now, now + 60_000, 'a')), [first, second], 'oldest first, up to the limit');
    t.same(await idsOf(store.feedback.claimReports(10, now, now + 60_000, 'b')), [third], 'another claim skips the leased ones');
    t.same(await idsOf(store.feedback.claimReports(10, now + 59_999, now + 60_000, 'x')), [], 'while their leases run');
    t.equal((await store.feedback.waitingReports(10)).length, 3, 'claimed reports are still waiting');
    t.equal(await store.feedback.finishReport(first!, 'b', applied), false, 'not finished under another claim’s token');
    t.same(await store.feedback.reportBody(first!), Buffer.from(`body of ${first}`), 'and its body is still there');
    t.equal(await store.feedback.finishReport(first!, 'a', applied), true);
    t.equal(await store.feedback.finishReport(first!, 'a', applied), false, 'finished once');
    t.same(await idsOf(store.feedback.claimReports(10, now + 60_000, now + 120_000, 'c')), [second, third], 'a lease run out is taken over');
    t.equal(await store.feedback.finishReport(second!, 'a', applied), false, 'the old holder is fenced out');
    t.same(await store.feedback.reportBody(second!), Buffer.from(`body of ${second}`), 'the body stays for the new holder');
    t.equal(await store.feedback.releaseReports('b'), 0, 'a claim taken over gives back nothing');
    t.equal(await store.feedback.finishReport(second!, 'c', applied), true);
    t.equal(await store.feedback.releaseReports('c'), 1, 'the rest of a claim is given back');
    t.same(await idsOf(store.feedback.claimReports(10, now + 60_000, now + 120_000, 'd')), [third], 'and free to claim at once');
    t.same(await idsOf(store.feedback.waitingReports(10)), [third]);
  }),

  check('of claims made at once, each report goes to one claim only', async (t, engine) => {
    const { store } = await engine.open(t);
    const reports = await reportsOf(store, 24);
    const now = Date.parse(at(0));
    const tokens = ['a', 'b', 'c', 'd', 'e', 'f'];
    // Several rounds, every claim given back between them: claims that truly overlap are a matter of timing.
    for (let round = 0; round < 10; round++) {
      const claims = await Promise.all(tokens.map((token) => store.feedback.claimReports(6, now, now + 60_000, `${token}${round}`)));
      const claimed = claims.flatMap((c) => c.map((r) => r.id));
      if (new Set(claimed).size !== claimed.length) return void t.fail(`round ${round}: a report in two claims`);
      if (claimed.length !== reports.length) return void t.fail(`round ${round}: ${claimed.length} of ${reports.length} claimed`);
      for (const token of tokens) await store.feedback.releaseReports(`${token}${round}`);
    }
    t.pass('no report in two claims, and every report claimed, in each of 10 rounds');
  }),

  check('a report an earlier release recorded without its body is claimed once its spool body is attached; one whose body is lost is dropped', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const [kept, lost] = [reportNo(1), reportNo(2)];
    await support.addReportWithoutBody(kept);
    await support.addReportWithoutBody(lost);
    const now = Date.parse(at(0));
    t.same(await idsOf(store.feedback.claimReports(10, now, now + 60_000, 'a')), [], 'no worker claims a report without its body');
    t.same(await idsOf(store.feedback.waitingReports(10)), [kept.id, lost.id], 'both still wait');
    t.equal(await store.feedback.attachReportBody(kept.id, Buffer.from('from the spool')), true);
    t.equal(await store.feedback.attachReportBody(kept.id, Buffer.from('another')), false, 'a body is attached once');
    t.equal(await store.feedback.attachReportBody('unknown', Buffer.from('orphan')), false, 'nor to a report that is not there');
    t.equal(await store.feedback.finishReportsWithoutBody({ state: 'dropped', kind: 'unknown', detail: 'the body is missing' }), 1, 'the lost one is dropped');
    t.same(await idsOf(store.feedback.claimReports(10, now, now + 60_000, 'a')), [kept.id], 'the other is claimed');
    t.same(await store.feedback.reportBody(kept.id), Buffer.from('from the spool'));
    t.equal(await store.feedback.finishReport(kept.id, 'a', applied), true);
    t.equal(await store.feedback.attachReportBody(kept.id, Buffer.from('late')), false, 'nor to a finished report');
    t.same(await store.feedback.waitingReports(10), []);
  }),
];
