// WordPress's server-wide request args, applied to every dashboard answer the way WP_REST_Server::serve_request
// applies them: `_method` / X-HTTP-Method-Override (on a POST only) pick the method routed; `_embed` embeds the
// resources an answer links as embeddable (each fetched as a GET by the same caller, with context=embed);
// `_fields` keeps only the named fields (`a.b` for nested ones) of the answer or of each item of a list;
// `_envelope` wraps the answer as {body, status, headers} and answers 200. The query is read with PHP's rules
// for brackets (`include[]=1&include[]=2`, `a[0]=x`), as the WordPress clients write arrays.
import type { IncomingMessage } from 'node:http';
import qs from 'qs';
import type { Answer } from '../../pipeline/pipeline.js';

/** The query as PHP reads it: brackets make arrays and objects; a repeated plain name keeps its last value. */
export function phpQuery(url: string | undefined): Record<string, unknown> {
  const params = new URL(url ?? '/', 'http://local').searchParams;
  const plain = new Map<string, string>();
  const bracketed: string[] = [];
  for (const [name, value] of params) {
    if (name.includes('[')) bracketed.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    else plain.set(name, value);
  }
  const nested = qs.parse(bracketed.join('&'), { depth: 5, arrayLimit: 100, parameterLimit: 1000 }) as Record<string, unknown>;
  return { ...Object.fromEntries(plain), ...nested };
}

const OVERRIDABLE = new Set(['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** The method routed: a POST may name another (`_method` or X-HTTP-Method-Override), as WordPress allows. */
export function routedMethod(req: IncomingMessage, query: Record<string, unknown>): string {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'POST') return method;
  const header = req.headers['x-http-method-override'];
  const named = typeof query._method === 'string' ? query._method : typeof header === 'string' ? header : undefined;
  const wanted = named?.toUpperCase();
  return wanted && OVERRIDABLE.has(wanted) ? wanted : method;
}

/** wp_parse_list: an array as given, or a text split on commas and spaces. */
export function parseList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter((v) => v !== '');
  if (typeof value !== 'string') return [];
  return value.split(/[\s,]+/).filter((v) => v !== '');
}

/** rest_parse_embed_param: true for every embeddable link, or the list of link relations asked for. */
export function embedParam(query: Record<string, unknown>): true | string[] | false {
  if (!('_embed' in query)) return false;
  const value = query._embed;
  if (value === '' || value === '1' || value === 'true' || value === undefined) return true;
  const rels = parseList(value);
  return rels.length ? rels : true;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface LinkTarget {
  href: string;
  embeddable?: boolean;
}

/** Fetches a linked resource as the caller: the answer of GET href (with context=embed). */
export type EmbedFetch = (href: string) => Promise<Answer>;

/** embed_links: `_embedded[rel]` lists each embeddable link's answer (its body, an error's too), in order. */
async function embedLinks(item: Json, wanted: true | string[], fetch: EmbedFetch, cache: Map<string, Promise<Answer>>): Promise<Json> {
  const links = item._links;
  if (!isObject(links)) return item;
  const embedded: Record<string, unknown[]> = {};
  for (const [rel, targets] of Object.entries(links)) {
    if (wanted !== true && !wanted.includes(rel)) continue;
    if (!Array.isArray(targets)) continue;
    const answers: unknown[] = [];
    for (const target of targets as LinkTarget[]) {
      if (!target.embeddable) continue;
      let answer = cache.get(target.href);
      if (!answer) {
        answer = fetch(target.href);
        cache.set(target.href, answer);
      }
      answers.push((await answer).body);
    }
    if (answers.length) embedded[rel] = answers;
  }
  return Object.keys(embedded).length ? { ...item, _embedded: embedded } : item;
}

/** The answer's body with its embeddable links embedded (each item of a list its own). */
export async function withEmbedded(body: unknown, wanted: true | string[], fetch: EmbedFetch): Promise<unknown> {
  const cache = new Map<string, Promise<Answer>>();
  if (Array.isArray(body)) return Promise.all((body as unknown[]).map((item) => (isObject(item) ? embedLinks(item, wanted, fetch, cache) : item)));
  return isObject(body) ? embedLinks(body, wanted, fetch, cache) : body;
}

/** The fields asked for as a tree: `a.b` keeps b of a; naming a parent keeps all of it. */
type FieldTree = { [name: string]: true | FieldTree };

function fieldTree(fields: readonly string[]): FieldTree {
  const tree: FieldTree = {};
  for (const field of fields) {
    const parts = field.trim().split('.');
    let node = tree;
    let covered = false;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (next === true) {
        covered = true;
        break;
      }
      node = node[part] = next ?? {};
    }
    if (!covered) node[parts.at(-1)!] = true;
  }
  return tree;
}

function keepFields(value: unknown, tree: FieldTree): unknown {
  if (!isObject(value)) return value;
  const kept: Json = {};
  for (const [name, sub] of Object.entries(tree)) {
    if (!(name in value)) continue;
    kept[name] = sub === true ? value[name] : keepFields(value[name], sub);
  }
  return kept;
}

/**
 * rest_filter_response_fields: only the named fields of the answer (of each item of a list). Links are part of
 * an item only when `_links` or `_embedded` is named, as WordPress's controllers add them only then.
 */
export function filterFields(body: unknown, fieldsParam: unknown): unknown {
  const fields = parseList(fieldsParam);
  if (!fields.length) return body;
  const tree = fieldTree(fields);
  if (tree._embedded && !tree._links) tree._links = true;
  return Array.isArray(body) ? body.map((item) => keepFields(item, tree)) : keepFields(body, tree);
}

/** envelope_response: the answer as a body, sent with 200. */
export function enveloped(answer: Answer): Answer {
  return { status: 200, body: { body: answer.body, status: answer.status, headers: answer.headers }, headers: {} };
}

const succeeded = (answer: Answer): boolean => answer.status < 400;

/** The global args applied to one answer, in WordPress's order: embed, then fields (errors untouched), then envelope. */
export async function applyGlobals(answer: Answer, query: Record<string, unknown>, fetch: EmbedFetch): Promise<Answer> {
  let out = answer;
  const embed = embedParam(query);
  if (embed && succeeded(out)) out = { ...out, body: await withEmbedded(out.body, embed, fetch) };
  if (query._fields !== undefined && succeeded(out)) out = { ...out, body: filterFields(out.body, query._fields) };
  if ('_envelope' in query) out = enveloped(out);
  return out;
}
