// Content items and terms in PostgreSQL: as SQLite's (store/sqlite/content.ts). An update that would take a slug
// already taken fails on the unique index and rolls back whole; it is told as 'slug_taken' (or the term's 'exists').
import { isUniqueViolation, type PgSql, type Queryable } from './sql.js';
import type { ContentItem, Term } from '../../domain/content.js';
import type { ContentChange, ContentRepository, ItemQuery, NewContentItem, NewTerm, TermQuery } from '../content.js';
import { CHANGEABLE, columnValue, decodeItem, decodeTerm, ITEM_COLUMNS, TERM_COLUMNS } from '../content-row.js';
import { likeContains } from '../like.js';
import { countOf } from '../decode.js';

type Value = string | number | null;

/** The values of one statement, each added where its placeholder is written. */
class Values {
  readonly list: Value[] = [];
  add(value: Value): string {
    this.list.push(value);
    return `$${this.list.length}`;
  }
  in(values: readonly Value[]): string {
    return `(${values.map((v) => this.add(v)).join(', ')})`;
  }
}

const ITEM_ORDER: Readonly<Record<ItemQuery['orderby'], string>> = {
  date: 'date',
  id: 'id',
  title: 'title',
  slug: 'slug',
  modified: 'modified',
  menu_order: 'menu_order',
  parent: 'parent_id',
  author: 'author_id',
  include: 'id',
};

function itemWhere(q: ItemQuery, v: Values): string {
  const where = [`type IN ${v.in(q.types)}`];
  if (q.owners) {
    const teams = q.owners.filter((o): o is number => o !== null);
    const parts = [...(q.owners.includes(null) ? ['team_id IS NULL'] : []), ...(teams.length ? [`team_id IN ${v.in(teams)}`] : [])];
    where.push(parts.length ? `(${parts.join(' OR ')})` : '0 = 1');
  }
  if (q.statuses) {
    const visible = `status IN ${v.in(q.statuses)}`;
    where.push(q.alsoOwnBy ? `(${visible} OR (author_id = ${v.add(q.alsoOwnBy.authorId)} AND status IN ${v.in(q.alsoOwnBy.statuses)}))` : visible);
  }
  if (q.search) {
    const like = likeContains(q.search);
    where.push(`(title ILIKE ${v.add(like)} ESCAPE '\\' OR excerpt ILIKE ${v.add(like)} ESCAPE '\\' OR content ILIKE ${v.add(like)} ESCAPE '\\')`);
  }
  if (q.include?.length) where.push(`id IN ${v.in(q.include)}`);
  if (q.exclude?.length) where.push(`id NOT IN ${v.in(q.exclude)}`);
  if (q.slugs?.length) where.push(`slug IN ${v.in(q.slugs)}`);
  if (q.authors?.length) where.push(`author_id IN ${v.in(q.authors)}`);
  if (q.authorsExcluded?.length) where.push(`(author_id IS NULL OR author_id NOT IN ${v.in(q.authorsExcluded)})`);
  if (q.parents?.length) where.push(`parent_id IN ${v.in(q.parents)}`);
  if (q.parentsExcluded?.length) where.push(`(parent_id IS NULL OR parent_id NOT IN ${v.in(q.parentsExcluded)})`);
  for (const terms of q.terms ?? []) where.push(`id IN (SELECT item_id FROM content_item_terms WHERE term_id IN ${v.in(terms)})`);
  if (q.termsExcluded?.length) where.push(`id NOT IN (SELECT item_id FROM content_item_terms WHERE term_id IN ${v.in(q.termsExcluded)})`);
  if (q.before) where.push(`date < ${v.add(q.before)}`);
  if (q.after) where.push(`date > ${v.add(q.after)}`);
  return where.join(' AND ');
}

function itemOrder(q: ItemQuery, v: Values): string {
  const direction = q.order === 'asc' ? 'ASC' : 'DESC';
  if (q.orderby === 'include' && q.include?.length) {
    const cases = q.include.map((id, i) => `WHEN ${v.add(id)} THEN ${i}`).join(' ');
    return `CASE id ${cases} END ASC`;
  }
  return `${ITEM_ORDER[q.orderby]} ${direction}, id ${direction}`;
}

function termWhere(q: TermQuery, v: Values): string {
  const where = [`taxonomy = ${v.add(q.taxonomy)}`];
  if (q.search) {
    const like = likeContains(q.search);
    where.push(`(name ILIKE ${v.add(like)} ESCAPE '\\' OR slug ILIKE ${v.add(like)} ESCAPE '\\')`);
  }
  if (q.include?.length) where.push(`id IN ${v.in(q.include)}`);
  if (q.exclude?.length) where.push(`id NOT IN ${v.in(q.exclude)}`);
  if (q.slugs?.length) where.push(`slug IN ${v.in(q.slugs)}`);
  if (q.parent !== undefined) where.push(q.parent === 0 ? 'parent_id IS NULL' : `parent_id = ${v.add(q.parent)}`);
  if (q.post !== undefined) where.push(`id IN (SELECT term_id FROM content_item_terms WHERE item_id = ${v.add(q.post)})`);
  if (q.hideEmpty) where.push('count > 0');
  return where.join(' AND ');
}

const TERM_ORDER: Readonly<Record<TermQuery['orderby'], string>> = {
  id: 'id',
  name: 'name',
  slug: 'slug',
  count: 'count',
  description: 'description',
  include: 'id',
  term_group: 'id',
};

/** A term with its count of published items linked to it. */
const COUNTED_TERMS = `(SELECT ${TERM_COLUMNS}, (SELECT COUNT(*)::int FROM content_item_terms l JOIN content_items i ON i.id = l.item_id
  WHERE l.term_id = t.id AND i.status = 'publish') AS count FROM content_terms t) counted`;

export class PgContentStore implements ContentRepository {
  constructor(private readonly sql: PgSql) {}

  private async withTerms(q: Queryable, items: ContentItem[]): Promise<ContentItem[]> {
    if (!items.length) return items;
    const v = new Values();
    const rows = await q.all<{ item_id: number; term_id: number }>(
      `SELECT item_id, term_id FROM content_item_terms WHERE item_id IN ${v.in(items.map((i) => i.id))} ORDER BY term_id`,
      v.list,
    );
    return items.map((item) => ({ ...item, termIds: rows.filter((r) => r.item_id === item.id).map((r) => r.term_id) }));
  }

  private static async linkTerms(q: Queryable, itemId: number, termIds: readonly number[]): Promise<void> {
    await q.run('DELETE FROM content_item_terms WHERE item_id = $1', [itemId]);
    for (const termId of new Set(termIds)) {
      await q.run('INSERT INTO content_item_terms (item_id, term_id) SELECT $1, id FROM content_terms WHERE id = $2 ON CONFLICT DO NOTHING', [itemId, termId]);
    }
  }

  async createItem(item: NewContentItem): Promise<ContentItem | 'slug_taken'> {
    return this.sql.tx(async (q) => {
      const columns = CHANGEABLE.map(([, column]) => column);
      const values = CHANGEABLE.map(([field]) => columnValue(field, item[field]));
      const row = await q.get(
        `INSERT INTO content_items (type, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')})
         ON CONFLICT DO NOTHING RETURNING ${ITEM_COLUMNS}`,
        [item.type, ...values],
      );
      if (!row) return 'slug_taken';
      const created = decodeItem(row);
      await PgContentStore.linkTerms(q, created.id, item.termIds ?? []);
      return (await this.withTerms(q, [created]))[0]!;
    });
  }

  async getItem(id: number): Promise<ContentItem | undefined> {
    const row = await this.sql.get(`SELECT ${ITEM_COLUMNS} FROM content_items WHERE id = $1`, [id]);
    return row && (await this.withTerms(this.sql, [decodeItem(row)]))[0];
  }

  async updateItem(id: number, change: ContentChange): Promise<ContentItem | undefined | 'slug_taken'> {
    try {
      return await this.sql.tx(async (q) => {
        const set = CHANGEABLE.filter(([field]) => field in change && change[field as keyof ContentChange] !== undefined);
        const assignments = set.map(([, column], i) => `${column} = $${i + 1}`);
        const values = set.map(([field]) => columnValue(field, change[field as keyof ContentChange]));
        const row = assignments.length
          ? await q.get(`UPDATE content_items SET ${assignments.join(', ')} WHERE id = $${set.length + 1} RETURNING ${ITEM_COLUMNS}`, [...values, id])
          : await q.get(`SELECT ${ITEM_COLUMNS} FROM content_items WHERE id = $1`, [id]);
        if (!row) return undefined;
        const updated = decodeItem(row);
        if (change.termIds) await PgContentStore.linkTerms(q, id, change.termIds);
        return (await this.withTerms(q, [updated]))[0]!;
      });
    } catch (err) {
      if (isUniqueViolation(err, 'content_items_slug')) return 'slug_taken';
      throw err;
    }
  }

  async deleteItem(id: number): Promise<ContentItem | undefined> {
    return this.sql.tx(async (q) => {
      const before = await q.get(`SELECT ${ITEM_COLUMNS} FROM content_items WHERE id = $1`, [id]);
      if (!before) return undefined;
      const item = (await this.withTerms(q, [decodeItem(before)]))[0]!;
      await q.run('DELETE FROM content_items WHERE id = $1', [id]);
      return item;
    });
  }

  async listItems(query: ItemQuery): Promise<{ items: ContentItem[]; total: number }> {
    const v = new Values();
    const where = itemWhere(query, v);
    const total = countOf((await this.sql.get(`SELECT COUNT(*)::int AS n FROM content_items WHERE ${where}`, v.list))!);
    const page = new Values();
    const pageWhere = itemWhere(query, page);
    const order = itemOrder(query, page);
    const rows = await this.sql.all(
      `SELECT ${ITEM_COLUMNS} FROM content_items WHERE ${pageWhere} ORDER BY ${order} LIMIT ${page.add(query.limit)} OFFSET ${page.add(query.offset)}`,
      page.list,
    );
    return { items: await this.withTerms(this.sql, rows.map(decodeItem)), total };
  }

  async revisionsOf(parentId: number): Promise<ContentItem[]> {
    const rows = await this.sql.all(`SELECT ${ITEM_COLUMNS} FROM content_items WHERE type = 'revision' AND parent_id = $1 ORDER BY date DESC, id DESC`, [parentId]);
    return rows.map(decodeItem);
  }

  async reassignAuthor(from: number, to: number | null): Promise<number> {
    return (await this.sql.run('UPDATE content_items SET author_id = $1 WHERE author_id = $2', [to, from])).changes;
  }

  async createTerm(term: NewTerm): Promise<Term | { exists: number }> {
    return this.sql.tx(async (q) => {
      const row = await q.get(
        `INSERT INTO content_terms (taxonomy, name, slug, description, parent_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING ${TERM_COLUMNS}, 0 AS count`,
        [term.taxonomy, term.name, term.slug, term.description, term.parentId],
      );
      if (row) return decodeTerm(row);
      const existing = await q.get<{ id: number }>('SELECT id FROM content_terms WHERE taxonomy = $1 AND slug = $2', [term.taxonomy, term.slug]);
      return { exists: existing!.id };
    });
  }

  async getTerm(id: number): Promise<Term | undefined> {
    const row = await this.sql.get(`SELECT * FROM ${COUNTED_TERMS} WHERE id = $1`, [id]);
    return row && decodeTerm(row);
  }

  async updateTerm(id: number, change: Partial<Omit<NewTerm, 'taxonomy'>>): Promise<Term | undefined | { exists: number }> {
    const fields: Array<[keyof typeof change, string]> = [
      ['name', 'name'],
      ['slug', 'slug'],
      ['description', 'description'],
      ['parentId', 'parent_id'],
    ];
    const set = fields.filter(([field]) => change[field] !== undefined);
    try {
      return await this.sql.tx(async (q) => {
        if (set.length) {
          const assignments = set.map(([, c], i) => `${c} = $${i + 1}`).join(', ');
          await q.run(`UPDATE content_terms SET ${assignments} WHERE id = $${set.length + 1}`, [...set.map(([field]) => change[field] as Value), id]);
        }
        const row = await q.get(`SELECT * FROM ${COUNTED_TERMS} WHERE id = $1`, [id]);
        return row && decodeTerm(row);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const current = await this.getTerm(id);
      const taken = await this.sql.get<{ id: number }>('SELECT id FROM content_terms WHERE taxonomy = $1 AND slug = $2', [current?.taxonomy ?? '', change.slug ?? '']);
      return { exists: taken?.id ?? id };
    }
  }

  async deleteTerm(id: number): Promise<Term | undefined> {
    return this.sql.tx(async (q) => {
      const row = await q.get(`SELECT * FROM ${COUNTED_TERMS} WHERE id = $1`, [id]);
      if (!row) return undefined;
      await q.run('DELETE FROM content_terms WHERE id = $1', [id]);
      return decodeTerm(row);
    });
  }

  async listTerms(query: TermQuery): Promise<{ terms: Term[]; total: number }> {
    const v = new Values();
    const where = termWhere(query, v);
    const total = countOf((await this.sql.get(`SELECT COUNT(*)::int AS n FROM ${COUNTED_TERMS} WHERE ${where}`, v.list))!);
    const page = new Values();
    const pageWhere = termWhere(query, page);
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const order =
      query.orderby === 'include' && query.include?.length
        ? `CASE id ${query.include.map((id, i) => `WHEN ${page.add(id)} THEN ${i}`).join(' ')} END ASC`
        : `${TERM_ORDER[query.orderby]} ${direction}, id ${direction}`;
    const rows = await this.sql.all(
      `SELECT * FROM ${COUNTED_TERMS} WHERE ${pageWhere} ORDER BY ${order} LIMIT ${page.add(query.limit)} OFFSET ${page.add(query.offset)}`,
      page.list,
    );
    return { terms: rows.map(decodeTerm), total };
  }
}
