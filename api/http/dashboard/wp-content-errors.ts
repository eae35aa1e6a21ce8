// The content namespace's one table from the core's outcomes to WordPress's errors, and the caller as the core's
// content actor. WordPress's "may not" codes answer 401 to an anonymous caller and 403 to a signed-in one.
import type { ContentActor } from '../../../shared/core/content/access.js';
import type { ContentResult } from '../../../shared/core/content/posts.js';
import type { TermRefusal } from '../../../shared/core/content/terms.js';
import { roleAllows } from '../../../shared/domain/user.js';
import { dashboardError, MESSAGES, notAllowed, type DashboardError } from '../../pipeline/dashboard-errors.js';
import type { DashboardCaller } from './authentication.js';

export function actorOf(caller: DashboardCaller | undefined): ContentActor {
  if (!caller) return { kind: 'anonymous' };
  if (caller.kind === 'operator') return { kind: 'operator', userId: caller.user.id };
  return { kind: 'member', userId: caller.user.id, teamId: caller.acting.id, canWrite: roleAllows(caller.user.role, 'write') };
}

const FORBIDDEN_MESSAGES: Readonly<Record<string, string>> = {
  rest_forbidden: MESSAGES.rest_forbidden,
  rest_forbidden_context: MESSAGES.rest_forbidden_context,
  rest_forbidden_status: 'Status is forbidden.',
  rest_cannot_create: 'Sorry, you are not allowed to create posts as this user.',
  rest_cannot_edit: 'Sorry, you are not allowed to edit this post.',
  rest_cannot_delete: 'Sorry, you are not allowed to delete this post.',
  rest_cannot_read: 'Sorry, you are not allowed to view revisions of this post.',
  rest_cannot_manage_templates: 'Sorry, you are not allowed to access the templates on this site.',
  rest_cannot_export_templates: 'Sorry, you are not allowed to export templates and template parts.',
};

/** What a refusal is about: a post, a term or a template (each has its own "not found"). */
export type ContentThing = 'post' | 'term' | 'template';

/** The WordPress error of a refusal; `item` names what was not found (a post, a term, a template). */
export function contentError(refusal: TermRefusal, item: ContentThing = 'post'): DashboardError {
  switch (refusal.kind) {
    case 'not_found':
      if (item === 'template') return dashboardError('rest_template_not_found', 'No templates exist with that id.');
      return item === 'term' ? dashboardError('rest_term_invalid', MESSAGES.rest_term_invalid) : dashboardError('rest_post_invalid_id', MESSAGES.rest_post_invalid_id);
    case 'forbidden':
      return notAllowed(refusal.code, FORBIDDEN_MESSAGES[refusal.code] ?? MESSAGES.rest_forbidden, refusal.anonymous);
    case 'exists':
      return dashboardError('rest_post_exists', MESSAGES.rest_post_exists);
    case 'already_trashed':
      return dashboardError('rest_already_trashed', MESSAGES.rest_already_trashed);
    case 'trash_not_supported':
      return dashboardError(
        'rest_trash_not_supported',
        refusal.what === 'terms'
          ? "Terms do not support trashing. Set 'force' to true to delete."
          : refusal.what === 'templates'
            ? 'Templates do not support trashing.'
            : refusal.what === 'revisions'
              ? "Revisions do not support trashing. Set 'force' to true to delete."
              : "The post does not support trashing. Set 'force' to true to delete.",
      );
    case 'invalid_parent':
      return dashboardError('rest_post_invalid_parent', 'Invalid post parent ID.');
    case 'revision_mismatch':
      return dashboardError('rest_revision_parent_id_mismatch', MESSAGES.rest_revision_parent_id_mismatch);
    case 'no_autosave':
      return dashboardError('rest_post_no_autosave', MESSAGES.rest_post_no_autosave);
    case 'slug_exhausted':
      return dashboardError('rest_invalid_slug', 'No free slug is left for this name; give another slug.');
    case 'term_exists':
      return dashboardError('term_exists', 'A term with the name provided already exists in this taxonomy.', { term_id: refusal.termId });
    case 'invalid_parent_term':
      return dashboardError('rest_term_invalid_parent', 'Parent term does not exist.');
  }
}

/** The value of an outcome, or its WordPress error thrown. */
export function contentValue<T>(result: ContentResult<T> | { ok: true; value: T } | { ok: false; refusal: TermRefusal }, item: ContentThing = 'post'): T {
  if (result.ok) return result.value;
  throw contentError(result.refusal, item);
}

/** WordPress's date format: ISO 8601 without a zone or fraction (the site's zone is UTC). */
export const wpDate = (iso: string): string => iso.slice(0, 19);
