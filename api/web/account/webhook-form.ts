// A webhook's fields on a page: the inputs (name, URL, events, whether the message is included), filled with the
// webhook's values when it is edited, and what a posted form gives the core. The create form (webhooks.ts) and
// the edit form (webhook-page.ts) share them; the rules themselves are the core's (core/webhooks.ts).
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../shared/domain/webhook.js';
import { WEBHOOK_TITLE_MAX, type WebhookFields } from '../../../shared/core/webhooks.js';
import { WEBHOOK_URL_MAX } from '../../../shared/webhook-url.js';
import { html, type Html } from '../html.js';
import { managementProblems, pageErrorFor, type FieldLabels } from '../errors.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';

const EVENT_LABELS: Readonly<Record<WebhookEvent, string>> = {
  bounced: 'bounced — a recipient’s server refused the message',
  complaint: 'complaint — a recipient marked the message as spam',
};

/** The inputs of a webhook's fields, their ids prefixed by `prefix` (two forms may share a page). */
export function webhookInputs(prefix: string, current?: WebhookFields): Html {
  const events = WEBHOOK_EVENTS.map((e) => {
    const id = `${prefix}-event-${e}`;
    const checked = current ? current.events.includes(e) : true;
    return html`<label for="${id}"><input type="checkbox" id="${id}" name="events" value="${e}" ${checked ? html`checked` : undefined} /> ${EVENT_LABELS[e]}</label>`;
  });
  return html`<label for="${prefix}-title">Name (optional)</label>
    <input type="text" id="${prefix}-title" name="title" maxlength="${WEBHOOK_TITLE_MAX}" value="${current?.title ?? ''}" />
    <label for="${prefix}-url">URL</label>
    <input
      type="url"
      id="${prefix}-url"
      name="url"
      maxlength="${WEBHOOK_URL_MAX}"
      required
      value="${current?.url ?? ''}"
      placeholder="https://example.com/tern-events"
      aria-describedby="${prefix}-url-hint"
    />
    <p class="hint" id="${prefix}-url-hint">https, or http on port 80, 443 or 8080, on a public host name.</p>
    <fieldset>
      <legend>Events to send</legend>
      ${events}
    </fieldset>
    <label for="${prefix}-include-message"
      ><input type="checkbox" id="${prefix}-include-message" name="include_message" value="1" ${current?.includeMessage ? html`checked` : undefined} /> Include the
      message (id, subject, from, to) in each event</label
    >`;
}

/**
 * The fields a form posted. Events are passed on as given (the core refuses an unknown one); a form with no
 * event ticked gives none, which the core refuses too, so the page and the REST route say the same.
 */
export function postedFields(form: URLSearchParams): WebhookFields {
  return {
    title: (form.get('title') ?? '').trim(),
    url: form.get('url') ?? '',
    events: form.getAll('events') as WebhookEvent[],
    includeMessage: form.get('include_message') === '1',
  };
}

/** The webhook form's fields as its labels say them (the core's refusals name its fields). */
export const WEBHOOK_LABELS: FieldLabels = { title: 'Name', url: 'URL', events: 'Events to send', include_message: 'Include the message' };

/** A refused webhook change as the form says it: every problem in the form's words, and the refusal's status. */
export function webhookFormRefusal(refusal: ManagementRefusal): { messages: string[]; status: number } {
  const e = pageErrorFor(refusal);
  if (e.status === 403 || e.status === 404) throw e;
  return { messages: managementProblems(refusal, WEBHOOK_LABELS) ?? [e.message], status: e.status };
}
