// Whether some HTML can run anything, read as a browser would (htmlparser2 builds the element tree): the check
// the tests of email templates make of every HTML part.
import type { Test } from 'tap';
import { parseDocument, DomUtils } from 'htmlparser2';

const ACTIVE = ['script', 'iframe', 'frame', 'object', 'embed', 'form', 'link', 'style', 'base', 'meta'];

/** Names what could run: a script, frame, form or stylesheet element, an event handler attribute, a link or
 * image of another scheme than http(s), mailto or cid. `allowed` lists elements the caller's own document has
 * (the `<meta charset>` of an email's head). */
export function activeParts(html: string, allowed: readonly string[] = []): string[] {
  const elements = DomUtils.findAll(() => true, parseDocument(html).children);
  return [
    ...elements.filter((e) => ACTIVE.includes(e.name) && !allowed.includes(e.name)).map((e) => `<${e.name}>`),
    ...elements.flatMap((e) => Object.keys(e.attribs).filter((name) => name.toLowerCase().startsWith('on'))).map((name) => `${name}=`),
    ...elements
      .flatMap((e) => ['href', 'src', 'action', 'formaction', 'background'].map((a) => e.attribs[a]))
      .filter((url): url is string => url !== undefined && !/^(https?:|mailto:|cid:)/i.test(url.trim())),
  ];
}

export function assertInert(t: Test, html: string, allowed: readonly string[] = []): void {
  t.same(activeParts(html, allowed), [], 'nothing in the HTML can run: no script, handler, frame, form, stylesheet or other URL scheme');
}
