// Applies the reports the MX listeners recorded: a bounce to the recipient its VERP address names, a
// complaint to the recipient of the original it quotes. Every change goes through Outcomes (states,
// suppression, counters, webhook events, reputation). The queue is the store's inbox, shared by every MTA:
// a pass claims waiting reports under a token for a lease, reads each one's body from the store and finishes
// it fenced on the token. A report stays 'received' until it is finished, so one left by a crash (or by an
// MTA killed mid-pass) is claimed again once its lease runs out, here or on another MTA (applying one twice
// changes nothing the second time).
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../../shared/runtime/runtime.js';
import { parseVerp } from '../../shared/verp.js';
import { metrics } from '../../shared/metrics.js';
import { classifyReply, formatReply } from '../replies/classify.js';
import type { ReplyRules } from '../../shared/policies/smtp-replies.js';
import type { Outcomes } from '../outcomes/outcome.js';
import { parseReport, type BounceReport, type ComplaintReport, type ParsedReport } from './reports.js';
import type { InboundReport, ReportVerdict } from '../../shared/domain/feedback.js';

export interface ReportWorkerDeps {
  rt: Runtime;
  outcomes: Outcomes;
  /** What a bounce's reply means (config/smtp-replies.json, loaded once). */
  replies: ReplyRules;
  verpSecret: Buffer;
  pollMs?: number;
  /** How long a pass holds the reports it claimed; a holder gone quiet longer than this is taken over. */
  leaseMs?: number;
}

type Verdict = ReportVerdict;

/** Reports claimed per pass (each body is read on its own, so a batch never holds more than one in memory). */
const BATCH = 50;
/** Far longer than a pass of 50 reports takes; short enough that a killed MTA's reports wait little. */
const LEASE_MS = 120_000;
const MAX_REASON = 500;

const dropped = (kind: string, detail: string): Verdict => ({ state: 'dropped', kind, detail });

export class ReportWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly d: ReportWorkerDeps) {}

  /** Applies what a previous run left, then polls; wake() runs a pass at once. */
  async start(): Promise<void> {
    await this.drain();
    this.timer = setInterval(() => this.wake(), this.d.pollMs ?? 500);
    this.timer.unref();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = null));
  }

  /** Runs passes until no report is waiting; resolves when the queue is empty (or a pass failed). */
  async drain(): Promise<void> {
    this.wake();
    while (this.running) await this.running;
  }

  /** Finishes the pass under way; reports arriving after this wait for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        while ((await this.pass()) === BATCH);
      } catch (err) {
        // The store is in trouble: the reports stay waiting for the next poll.
        this.d.rt.log.warn({ err: (err as Error).message }, 'report processing failed; retrying on the next poll');
        return;
      }
    } while (this.again);
  }

  /** Claims a batch, processes it, and gives back what a failure left unprocessed (free to claim at once). */
  private async pass(): Promise<number> {
    const feedback = this.d.rt.store.feedback;
    const token = randomUUID();
    const now = Date.now();
    const claimed = await feedback.claimReports(BATCH, now, now + (this.d.leaseMs ?? LEASE_MS), token);
    try {
      for (const report of claimed) await this.process(report, token);
    } finally {
      // After a failure the store may be down too: then the lease runs out instead.
      if (claimed.length) await feedback.releaseReports(token).catch(() => 0);
    }
    return claimed.length;
  }

  private async process(report: InboundReport, token: string): Promise<void> {
    const feedback = this.d.rt.store.feedback;
    // A claimed report always has its body: none means another worker took it over and finished it meanwhile.
    const raw = await feedback.reportBody(report.id);
    if (raw === null) return;
    const verdict = await this.apply(report, await parseReport(raw));
    if (!(await feedback.finishReport(report.id, token, verdict))) {
      this.d.rt.log.warn({ report: report.id }, 'report taken over by another worker before it was finished here; its verdict is the other worker’s');
      return;
    }
    metrics.inboundReports.inc({ kind: verdict.kind, state: verdict.state });
    this.d.rt.log[verdict.state === 'dropped' ? 'warn' : 'info'](
      { report: report.id, rcpt: report.rcptTo, from: report.mailFrom, kind: verdict.kind, detail: verdict.detail },
      `report ${verdict.state}`,
    );
  }

  private async apply(report: InboundReport, parsed: ParsedReport): Promise<Verdict> {
    switch (parsed.kind) {
      case 'bounce':
        return this.bounce(report, parsed);
      case 'complaint':
        return this.complaint(report, parsed);
      case 'delay':
        return { state: 'processed', kind: 'delay', detail: `action ${parsed.action}${parsed.status ? ` ${parsed.status}` : ''}: no state change` };
      case 'unknown':
        return dropped('unknown', parsed.reason);
    }
  }

  private async bounce(report: InboundReport, parsed: BounceReport): Promise<Verdict> {
    const recipientId = parseVerp(report.rcptTo, this.d.verpSecret);
    if (recipientId === null) return dropped('bounce', `not sent to a VERP address (${report.rcptTo})`);
    const c = classifyReply(parsed.reply, this.d.replies);
    // A temporary condition reported as final is a soft bounce whatever its text says.
    const hard = parsed.permanent && c.result === 'bounced' && c.hard;
    const reason = formatReply(parsed.reply).slice(0, MAX_REASON) || c.reason;
    const applied = await this.d.outcomes.bounce({ recipientId, hard, reason, source: 'report' });
    if (!applied) return dropped('bounce', `recipient ${recipientId} is unknown or was not sent`);
    return { state: 'processed', kind: 'bounce', detail: `${hard ? 'hard' : 'soft'} (${c.rule}) ${applied.messageId} ${applied.email}: ${reason}` };
  }

  private async complaint(report: InboundReport, parsed: ComplaintReport): Promise<Verdict> {
    const recipientId = await this.complainant(report, parsed);
    if (recipientId === null) return dropped('complaint', 'matches no recipient (no valid VERP address, unknown Message-ID)');
    const reason = `${parsed.feedbackType} complaint${parsed.reporter ? ` reported by ${parsed.reporter}` : ''}`.slice(0, MAX_REASON);
    const applied = await this.d.outcomes.complaint({ recipientId, reason });
    if (!applied) return dropped('complaint', `recipient ${recipientId} is unknown`);
    return { state: 'processed', kind: 'complaint', detail: `${applied.messageId} ${applied.email}: ${reason}` };
  }

  /** The signed VERP address of the original (or of the report's own envelope), else the original's Message-ID. */
  private async complainant(report: InboundReport, parsed: ComplaintReport): Promise<number | null> {
    for (const address of [parsed.verp, report.rcptTo]) {
      const id = address ? parseVerp(address, this.d.verpSecret) : null;
      if (id !== null) return id;
    }
    if (!parsed.originalMessageId) return null;
    return this.d.rt.store.feedback.recipientByMessageIdHeader(parsed.originalMessageId, parsed.originalRcpt ?? null);
  }
}
