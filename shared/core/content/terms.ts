// The use cases of terms (categories, tags), as WordPress's terms controller runs them: anyone reads them;
// platform operators write them; a name's slug is unique per taxonomy (the store's index decides: the second
// is told the first's id, WordPress's term_exists); terms have no trash, so a DELETE must be forced.
import type { Taxonomy, Term } from '../../domain/content.js';
import type { Store } from '../../store/index.js';
import type { TermQuery } from '../../store/content.js';

export type { TermQuery };
import { isAnonymous, type ContentActor } from './access.js';
import type { ContentRefusal, ContentResult } from './posts.js';
import { slugOf } from './slugs.js';

export type TermRefusal = ContentRefusal | { kind: 'term_exists'; termId: number } | { kind: 'invalid_parent_term' };
export type TermResult<T> = { ok: true; value: T } | { ok: false; refusal: TermRefusal };

export interface TermInput {
  name?: string;
  slug?: string;
  description?: string;
  parentId?: number | null;
}

const mayWriteTerms = (actor: ContentActor): boolean => actor.kind === 'operator';

const forbidden = <T>(actor: ContentActor, code: 'rest_cannot_create' | 'rest_cannot_edit' | 'rest_cannot_delete' | 'rest_forbidden_context'): TermResult<T> => ({
  ok: false,
  refusal: { kind: 'forbidden', code, anonymous: isAnonymous(actor) },
});

export class Terms {
  constructor(private readonly deps: { store: Store }) {}

  private get content() {
    return this.deps.store.content;
  }

  async list(actor: ContentActor, q: TermQuery & { edit: boolean }): Promise<ContentResult<{ terms: Term[]; total: number }>> {
    if (q.edit && !mayWriteTerms(actor)) return { ok: false, refusal: { kind: 'forbidden', code: 'rest_forbidden_context', anonymous: isAnonymous(actor) } };
    const { edit, ...query } = q;
    void edit; // the context is the interface's; the store is asked for the terms only
    return { ok: true, value: await this.content.listTerms(query) };
  }

  /** The taxonomy of each of these terms (an item's term ids split into categories and tags). */
  async taxonomiesOf(ids: readonly number[]): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    if (!ids.length) return found;
    for (const taxonomy of ['category', 'post_tag'] as const) {
      const { terms } = await this.content.listTerms({ taxonomy, include: ids, orderby: 'id', order: 'asc', offset: 0, limit: ids.length });
      for (const term of terms) found.set(term.id, term.taxonomy);
    }
    return found;
  }

  async read(actor: ContentActor, taxonomy: Taxonomy, id: number, edit: boolean): Promise<TermResult<Term>> {
    const term = await this.content.getTerm(id);
    if (!term || term.taxonomy !== taxonomy) return { ok: false, refusal: { kind: 'not_found' } };
    if (edit && !mayWriteTerms(actor)) return forbidden(actor, 'rest_forbidden_context');
    return { ok: true, value: term };
  }

  private async parentRefused(taxonomy: Taxonomy, parentId: number | null | undefined, self?: number): Promise<boolean> {
    if (!parentId) return false;
    const parent = await this.content.getTerm(parentId);
    return !parent || parent.taxonomy !== taxonomy || parent.id === self;
  }

  async create(actor: ContentActor, taxonomy: Taxonomy, input: TermInput & { name: string }): Promise<TermResult<Term>> {
    if (!mayWriteTerms(actor)) return forbidden(actor, 'rest_cannot_create');
    if (await this.parentRefused(taxonomy, input.parentId)) return { ok: false, refusal: { kind: 'invalid_parent_term' } };
    const created = await this.content.createTerm({
      taxonomy,
      name: input.name,
      slug: slugOf(input.slug ?? input.name),
      description: input.description ?? '',
      parentId: input.parentId ?? null,
    });
    return 'exists' in created ? { ok: false, refusal: { kind: 'term_exists', termId: created.exists } } : { ok: true, value: created };
  }

  async update(actor: ContentActor, taxonomy: Taxonomy, id: number, input: TermInput): Promise<TermResult<Term>> {
    const current = await this.content.getTerm(id);
    if (!current || current.taxonomy !== taxonomy) return { ok: false, refusal: { kind: 'not_found' } };
    if (!mayWriteTerms(actor)) return forbidden(actor, 'rest_cannot_edit');
    if (await this.parentRefused(taxonomy, input.parentId, id)) return { ok: false, refusal: { kind: 'invalid_parent_term' } };
    const updated = await this.content.updateTerm(id, {
      name: input.name,
      slug: input.slug === undefined ? undefined : slugOf(input.slug),
      description: input.description,
      parentId: input.parentId,
    });
    if (!updated) return { ok: false, refusal: { kind: 'not_found' } };
    return 'exists' in updated ? { ok: false, refusal: { kind: 'term_exists', termId: updated.exists } } : { ok: true, value: updated };
  }

  async remove(actor: ContentActor, taxonomy: Taxonomy, id: number, force: boolean): Promise<TermResult<Term>> {
    const current = await this.content.getTerm(id);
    if (!current || current.taxonomy !== taxonomy) return { ok: false, refusal: { kind: 'not_found' } };
    if (!mayWriteTerms(actor)) return forbidden(actor, 'rest_cannot_delete');
    if (!force) return { ok: false, refusal: { kind: 'trash_not_supported', what: 'terms' } };
    const gone = await this.content.deleteTerm(id);
    return gone ? { ok: true, value: gone } : { ok: false, refusal: { kind: 'not_found' } };
  }
}
