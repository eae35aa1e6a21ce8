// Slugs as WordPress makes them (sanitize_title): lower case, accents dropped, words joined by hyphens; a taken
// one gets the next free suffix (wp_unique_post_slug: hello, hello-2, hello-3...). The store's unique index
// decides which is free, so two items saved at once never share one.
import slugifyModule from 'slugify';
import sanitizeHtml from 'sanitize-html';

// slugify is CommonJS with an ES-style default in its types: under NodeNext the default import is the module object.
const slugify = slugifyModule as unknown as (text: string, options: { lower: boolean; strict: boolean; trim: boolean }) => string;

/** As sanitize_title: the tags dropped first (a title may hold markup), then the words of the text. */
export const slugOf = (text: string): string =>
  slugify(sanitizeHtml(text, { allowedTags: [], allowedAttributes: {} }).replace(/&amp;/g, '&'), { lower: true, strict: true, trim: true }).slice(0, 200);

/** The slugs to try in order for a wanted one. */
export function* candidates(wanted: string, tries = 50): Generator<string> {
  yield wanted;
  for (let n = 2; n < tries + 2; n++) yield `${wanted}-${n}`;
}

/** Stores with the first free slug of `wanted`: the write's own outcome, or 'slug_taken' when all were taken. */
export async function withFreeSlug<T>(wanted: string, write: (slug: string) => Promise<T | 'slug_taken'>): Promise<T | 'slug_taken'> {
  if (wanted === '') return write('');
  for (const slug of candidates(wanted)) {
    const result = await write(slug);
    if (result !== 'slug_taken') return result;
  }
  return 'slug_taken';
}
