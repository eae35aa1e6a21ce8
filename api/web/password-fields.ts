// The password fields the dashboard's forms share (the forced change, the profile's change, a reset link's form):
// one place says the rule's length, the autocomplete hints password managers read, and the hint tied to the field.
import { PASSWORD_LENGTH } from '../../shared/core/identity/index.js';
import { html, type Html } from './html.js';

/** The current password, asked before a change. */
export const currentPasswordField = (): Html =>
  html`<label for="current_password">Current password</label>
    <input type="password" id="current_password" name="current_password" autocomplete="current-password" required />`;

/** A new password under the rule's length, with its hint (what the rule says, then `more`). */
export function newPasswordField(o: { name: string; label: string; more?: string; autofocus?: boolean }): Html {
  return html`<label for="${o.name}">${o.label}</label>
    <input
      type="password"
      id="${o.name}"
      name="${o.name}"
      minlength="${PASSWORD_LENGTH.min}"
      maxlength="${PASSWORD_LENGTH.max}"
      autocomplete="new-password"
      required
      ${o.autofocus ? html`autofocus` : undefined}
      aria-describedby="${o.name}-hint"
    />
    <p class="hint" id="${o.name}-hint">${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters${o.more ? `, ${o.more}` : '.'}</p>`;
}
