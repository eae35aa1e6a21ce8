// One message's page: who sent what and when, its status, its recipients, every delivery attempt with the
// remote MX that answered and its reply (the SMTP conversation's last word, shown for a failed delivery too,
// which hosted services keep to themselves), and what happened after: bounces and complaints, and the
// webhook deliveries that told the team's endpoints about them. Read through the core's message history.
import type { AttemptOutcome, DeliveryAttempt, LoggedRecipient } from '../../../shared/domain/message-log.js';
import type { RecipientState } from '../../../shared/domain/queue-state.js';
import type { OutboxEvent, WebhookDeliveryRecord } from '../../../shared/domain/feedback.js';
import type { MessageHistory } from '../../../shared/core/message-log.js';
import { html, type Html } from '../html.js';
import { valueOrPageError } from '../errors.js';
import { accountPage, type PageCall } from '../page.js';
import { badge, table, when, type Tone } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';
import { LOGS_PATH, statusBadge } from './logs.js';

const OUTCOME_TONES: Readonly<Record<AttemptOutcome, Tone>> = { delivered: 'good', deferred: 'pending', bounced: 'bad', failed: 'bad' };
const STATE_TONES: Readonly<Record<RecipientState, Tone>> = {
  queued: 'pending',
  sending: 'pending',
  deferred: 'pending',
  held: 'pending',
  sent: 'good',
  bounced: 'bad',
  complained: 'bad',
  failed: 'bad',
  suppressed: 'pending',
};

/** States after which the address may be on the team's suppression list: the row links to it there. */
const SUPPRESSING: readonly RecipientState[] = ['bounced', 'complained', 'suppressed'];
const suppressionOf = (email: string): string => `/suppressions?${new URLSearchParams({ search: email }).toString()}`;

/** A time given in epoch milliseconds (the queue's), as the dashboard shows times. */
const whenMs = (ms: number | null): string => (ms === null ? '—' : when(new Date(ms).toISOString()));

function summary({ message: m, recipients }: MessageHistory): Html {
  const from = m.fromName ? `${m.fromName} <${m.fromEmail}>` : m.fromEmail;
  return html`<dl class="facts">
    <dt>Status</dt>
    <dd id="message-status">${statusBadge(m.status)}</dd>
    <dt>From</dt>
    <dd id="message-from">${from}</dd>
    <dt>Subject</dt>
    <dd id="message-subject">${m.subject || '(no subject)'}</dd>
    <dt>Accepted</dt>
    <dd>${when(m.createdAt)} <span class="muted">(over ${m.source})</span></dd>
    <dt>Sent</dt>
    <dd>${when(m.sentAt)}</dd>
    <dt>Recipients</dt>
    <dd>${recipients.length}</dd>
    <dt>Message-ID</dt>
    <dd><code>${m.messageIdHeader}</code></dd>
    <dt>Size</dt>
    <dd>${m.size} bytes${m.hasAttachments ? ', with attachments' : ''}</dd>
    ${
      m.error
        ? html`<dt>Error</dt>
            <dd class="error">${m.error}</dd>`
        : undefined
    }
  </dl>`;
}

function recipientsTable(recipients: readonly LoggedRecipient[]): Html {
  const rows = recipients.map(
    (r) =>
      html`<tr>
        <th scope="row">${r.email}</th>
        <td>${r.kind}</td>
        <td>${badge(r.state, STATE_TONES[r.state])}</td>
        <td class="number">${r.attempts}</td>
        <td>${r.state === 'queued' || r.state === 'deferred' ? whenMs(r.nextAttemptAt) : '—'}</td>
        <td>
          ${r.reason || r.lastReply || '—'} ${SUPPRESSING.includes(r.state) ? html`<a href="${suppressionOf(r.email)}">See it on the suppression list</a>` : undefined}
        </td>
      </tr>`,
  );
  return table('Each recipient and its state', ['Recipient', 'Type', 'State', 'Attempts', 'Next attempt', 'Reason'], rows, 'No recipients.');
}

function attemptsTable(attempts: readonly DeliveryAttempt[], recipients: readonly LoggedRecipient[]): Html {
  const emailOf = new Map(recipients.map((r) => [r.id, r.email]));
  const rows = attempts.map(
    (a) =>
      html`<tr>
        <td class="time">${when(a.at)}</td>
        <th scope="row">${emailOf.get(a.recipientId) ?? '—'}</th>
        <td>${badge(a.outcome, OUTCOME_TONES[a.outcome])}</td>
        <td>${a.mxHost ?? '—'}${a.ip ? html` <span class="muted">(${a.ip})</span>` : undefined}</td>
        <td><code class="reply">${a.reply || '—'}</code></td>
      </tr>`,
  );
  return table('Every attempt, oldest first', ['Time', 'Recipient', 'Outcome', 'Remote MX', 'Reply'], rows, 'No delivery attempt yet.');
}

function eventKind(e: OutboxEvent): string {
  if (e.type === 'complaint') return 'complaint';
  return e.isHardBounce === false ? 'soft bounce' : 'hard bounce';
}

function eventsTable(events: readonly OutboxEvent[]): Html {
  const rows = events.map(
    (e) =>
      html`<tr>
        <td class="time">${when(e.occurredAt)}</td>
        <th scope="row">${e.email}</th>
        <td>${badge(eventKind(e), 'bad')}</td>
        <td>${e.reason || '—'}</td>
        <td>${e.state === 'delivered' ? 'sent to webhooks' : 'waiting for webhooks'}</td>
      </tr>`,
  );
  return table('Bounces and complaints', ['Time', 'Recipient', 'Event', 'Reason', 'Webhooks'], rows, 'No bounce or complaint.');
}

function deliveriesTable(deliveries: readonly WebhookDeliveryRecord[]): Html {
  const rows = deliveries.map((d) => {
    const ok = d.statusCode !== null && d.statusCode >= 200 && d.statusCode <= 299;
    return html`<tr>
      <td class="time">${when(d.attemptedAt)}</td>
      <th scope="row">${d.url}</th>
      <td>${d.eventType}</td>
      <td>${badge(d.statusCode === null ? 'no answer' : String(d.statusCode), ok ? 'good' : 'bad')}</td>
      <td>${d.error ?? '—'}</td>
      <td class="number">${d.latencyMs} ms</td>
    </tr>`;
  });
  return table('Webhook deliveries, oldest first', ['Time', 'Endpoint', 'Event', 'Answer', 'Error', 'Latency'], rows, 'No webhook delivery for this message.');
}

async function showMessage({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const found = valueOrPageError(await ctx.core.messageLog.history(viewer.acting, r.params.log_hash ?? ''));
  const body = html`<p><a href="${LOGS_PATH}">← Back to the log</a></p>
    ${summary(found)}
    <h2>Recipients</h2>
    ${recipientsTable(found.recipients)}
    <h2>Delivery attempts</h2>
    <p class="hint">Each attempt’s remote mail server and its reply, word for word.</p>
    ${attemptsTable(found.attempts, found.recipients)}
    <h2>Events</h2>
    ${eventsTable(found.feedback)} ${deliveriesTable(found.webhookDeliveries)}`;
  return { kind: 'page', title: found.message.subject || '(no subject)', body };
}

export const MESSAGE_PAGES = [accountPage({ method: 'GET', path: `${LOGS_PATH}/:log_hash`, title: 'Message', section: LOGS_PATH, access: 'read', handle: showMessage })];
