// Prometheus metrics (prom-client), one registry per process. Both processes serve it at /metrics: the
// API on its own port, the MTA on a separate local port (with its /healthz and /readyz).
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { answerHealth, type PartsInUse } from './health-endpoints.js';
import type { Readiness } from './readiness.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'tern_process_' });

export const metrics = {
  messagesAccepted: new Counter({ name: 'tern_messages_accepted_total', help: 'Messages accepted into the queue', labelNames: ['source'], registers: [registry] }),
  recipientOutcomes: new Counter({
    name: 'tern_recipient_outcomes_total',
    help: 'Delivery attempt outcomes per recipient (sent, deferred, bounced, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  }),
  deliveryLatency: new Histogram({
    name: 'tern_delivery_latency_seconds',
    help: 'From acceptance to a final delivery outcome',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 14_400, 86_400],
    registers: [registry],
  }),
  smtpSessions: new Counter({ name: 'tern_smtp_sessions_total', help: 'SMTP sessions opened', labelNames: ['listener'], registers: [registry] }),
  httpRequests: new Counter({
    name: 'tern_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'tern_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  }),
  mxRcptRefused: new Counter({
    name: 'tern_mx_rcpt_refused_total',
    help: 'RCPT TO refused on the MX port, by reason (relay, unknown_recipient, forged_verp)',
    labelNames: ['reason'],
    registers: [registry],
  }),
  inboundReports: new Counter({
    name: 'tern_inbound_reports_total',
    help: 'Reports received on the MX port, by kind and whether they were applied or dropped',
    labelNames: ['kind', 'state'],
    registers: [registry],
  }),
};

/** How long a scrape waits for a store read before answering with the figures it last read. */
const STORE_READ_WAIT_MS = 1_000;

/**
 * A gauge's figures read from the store on scrape. A scrape never fails or waits long because of the store:
 * a read that fails, or is still running after STORE_READ_WAIT_MS, leaves the figures last read (the late read
 * still updates them when it lands). Under an MTA's supervisor, a worker that missed prom-client's deadline
 * would fail the whole scrape of every worker.
 */
class StoreFigures {
  private last: Record<string, number> = {};
  private inFlight: Promise<void> | undefined;
  read: () => Promise<Record<string, number>> = () => Promise.resolve({});

  async current(): Promise<Record<string, number>> {
    this.inFlight ??= this.read()
      .then(
        (figures) => void (this.last = figures),
        () => undefined,
      )
      .finally(() => (this.inFlight = undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, STORE_READ_WAIT_MS)))]);
    clearTimeout(timer);
    return this.last;
  }
}

const queueDepth = new StoreFigures();

new Gauge({
  name: 'tern_queue_recipients',
  // Read from the store, which every MTA worker shares: the supervisor's sum over workers would count it N times.
  aggregator: 'first',
  help: 'Recipients in the queue (queued, sending, deferred), by state; final outcomes are tern_recipient_outcomes_total',
  labelNames: ['state'],
  registers: [registry],
  async collect() {
    const figures = await queueDepth.current();
    this.reset();
    for (const [state, n] of Object.entries(figures)) this.set({ state }, n);
  },
});

const recipientFigures = new StoreFigures();

/** The days tern_recipients counts: the dashboard's default period. */
export const RECIPIENT_GAUGE_DAYS = 30;

new Gauge({
  name: 'tern_recipients',
  // Read from the store, which every MTA worker shares: the supervisor's sum over workers would count it N times.
  aggregator: 'first',
  help: `Recipients of the messages recorded over the last ${RECIPIENT_GAUGE_DAYS} UTC days, every tenant, by status (pending, sent, bounced, complained, suppressed, failed): the dashboard's figures, from the store's counters`,
  labelNames: ['status'],
  registers: [registry],
  async collect() {
    const figures = await recipientFigures.current();
    this.reset();
    for (const [status, n] of Object.entries(figures)) this.set({ status }, n);
  },
});

/** Where the recipients gauge reads from on every scrape (the platform statistics of the core). */
export function measureRecipients(read: () => Promise<Record<string, number>>): void {
  recipientFigures.read = read;
}

/** Where the queue-depth gauge reads from on every scrape (the MTA's store). */
export function measureQueueDepth(read: () => Promise<Record<string, number>>): void {
  queueDepth.read = read;
}

/** Observes one HTTP request once its response is finished. */
export function observeHttp(res: ServerResponse, method: string, route: string): void {
  const end = metrics.httpDuration.startTimer({ method, route });
  res.once('finish', () => {
    end();
    metrics.httpRequests.inc({ method, route, status: String(res.statusCode) });
  });
}

export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** The MTA's own metrics listener; it answers /healthz and /readyz too, from `readiness` (and names the store's engine and the Redis in use). */
export async function serveMetrics(host: string, port: number, readiness: () => Promise<Readiness>, partsInUse?: () => PartsInUse): Promise<Server> {
  const server = createServer((req, res) => {
    if (answerHealth(req, res, readiness, partsInUse)) return;
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void metricsText().then(({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
