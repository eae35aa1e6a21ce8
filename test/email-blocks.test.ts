// The block renderer of email templates (shared/core/blocks/): WordPress block markup parsed by WordPress's
// parser and written anew as email-safe HTML (tables, inline styles) with a text part; each core block an email
// needs, smartcodes escaped in HTML and as typed in text, links and images only of the schemes a mail may carry,
// raw HTML sanitised, unknown blocks as their escaped text, references looked up through the port with a guard.
import t from 'tap';
import { parse } from '@wordpress/block-serialization-default-parser';
import { renderBlockMarkup, MAX_REFERENCE_DEPTH, MAX_REFERENCES } from '../shared/core/blocks/render.js';
import { renderBlockEmail } from '../shared/core/blocks/email.js';
import { NO_BLOCKS, type BlockSource } from '../shared/core/blocks/block-source.js';
import { activeParts, assertInert } from './helpers/inert-html.js';
import { DEFAULT_LAYOUT, isBlockMarkup } from '../shared/domain/email-templates.js';

const SCRIPT = '<script>alert(1)</script>';
const render = (markup: string, values: Record<string, string> = {}, source: BlockSource = NO_BLOCKS) => renderBlockMarkup(markup, { source, values, color: '#1a56db' });
const block = (name: string, inner: string, attrs?: unknown) =>
  `<!-- wp:${name}${attrs === undefined ? '' : ` ${JSON.stringify(attrs)}`} -->\n${inner}\n<!-- /wp:${name} -->`;

t.test('the inertness check used here finds scripts, handlers and other URL schemes', async (t) => {
  t.same(activeParts('<p onclick="x()"><script>1</script><a href="javascript:x">a</a><img src="data:x"><a href="https://ok">b</a></p>'), [
    '<script>',
    'onclick=',
    'javascript:x',
    'data:x',
  ]);
});

t.test('a body is block markup when it holds a block comment; HTML bodies stay HTML', async (t) => {
  t.ok(isBlockMarkup('<!-- wp:paragraph -->\n<p>Hi</p>\n<!-- /wp:paragraph -->'));
  t.ok(isBlockMarkup('<!-- wp:block {"ref":3} /-->'));
  t.notOk(isBlockMarkup('<p>Hello {{inviter.name}}</p>'));
  t.notOk(isBlockMarkup('<!-- a comment --><p>Hi</p>'));
});

t.test('a paragraph keeps its inline formatting and alignment, drops its wrapper and classes', async (t) => {
  const html = await render(block('paragraph', '<p class="has-x" style="font-size:80px">Hello <strong>bold</strong> <em>it</em><br>next</p>', { align: 'center' }));
  t.equal(html, '<p style="margin:0 0 16px;text-align:center">Hello <strong>bold</strong> <em>it</em><br />next</p>');
  t.equal(await render(block('paragraph', '<p></p>')), '', 'an empty paragraph is left out');
});

t.test('a heading takes its level (2 by default, 1 to 6 only)', async (t) => {
  t.match(await render(block('heading', '<h3 class="wp-block-heading">Title</h3>', { level: 3 })), /^<h3 style="[^"]*font-size:20px[^"]*">Title<\/h3>$/);
  t.match(await render(block('heading', '<h2>Default</h2>')), /^<h2 [^>]*>Default<\/h2>$/);
  t.match(await render(block('heading', '<h2>Bad</h2>', { level: '1"><script>' })), /^<h2 [^>]*>Bad<\/h2>$/, 'a level that is no number is ignored');
});

t.test('lists: list-item blocks (nested, ordered) and the older list that kept its items in its HTML', async (t) => {
  const nested = block(
    'list',
    `<ul>${block('list-item', '<li>One</li>')}${block('list-item', `<li>Two${block('list', `<ol>${block('list-item', '<li>Inner</li>')}</ol>`, { ordered: true })}</li>`)}</ul>`,
  );
  const html = await render(nested);
  t.match(html, /^<ul style="[^"]*"><li style="[^"]*">One<\/li>\n<li style="[^"]*">Two<ol style="[^"]*"><li style="[^"]*">Inner<\/li><\/ol><\/li><\/ul>$/);
  t.match(await render(block('list', '<ol><li>a</li><li>b <b>c</b></li></ol>', { ordered: true })), /^<ol [^>]*><li>a<\/li><li>b <b>c<\/b><\/li><\/ol>$/);
});

t.test('an image: its source, alt (escaped), width, link and caption; a source that is not http(s) or cid drops it', async (t) => {
  const html = await render(
    block(
      'image',
      '<figure class="wp-block-image"><a href="https://example.com/x"><img src="https://cdn.example.com/a.png" alt="A &quot;logo&quot;" onerror="alert(1)"/></a><figcaption>The <b>logo</b></figcaption></figure>',
      {
        width: 200,
      },
    ),
  );
  t.match(html, '<a href="https://example.com/x"><img src="https://cdn.example.com/a.png" alt="A &quot;logo&quot;" width="200"');
  t.match(html, '>The <b>logo</b></p>');
  t.match(html, /^<table role="presentation"/, 'in a table');
  t.notMatch(html, 'onerror');
  t.match(await render(block('image', '<figure><img src="cid:logo@tern" alt=""/></figure>')), 'src="cid:logo@tern"', 'an attached image (cid:) stays');
  for (const src of ['javascript:alert(1)', 'data:image/png;base64,AAAA', '/relative.png', 'file:///etc/passwd'])
    t.equal(await render(block('image', `<figure><img src="${src}" alt="x"/></figure>`)), '', `${src} drops the image`);
  const badLink = await render(block('image', '<figure><a href="javascript:alert(1)"><img src="https://cdn.example.com/a.png" alt=""/></a></figure>'));
  t.match(badLink, '<img src="https://cdn.example.com/a.png"', 'the image stays');
  t.notMatch(badLink, '<a ', 'without its javascript: link');
});

t.test('buttons: a bulletproof table cell with the colour, justified; a link that is not http(s)/mailto/cid links nowhere', async (t) => {
  const buttons = block(
    'buttons',
    `<div class="wp-block-buttons">${block('button', '<div class="wp-block-button"><a class="wp-block-button__link" href="https://example.com/go?a=1&amp;b=2">Go <em>now</em></a></div>', { style: { color: { background: '#aa3300' } } })}${block('button', '<div class="wp-block-button"><a class="wp-block-button__link" href="mailto:help@example.com">Mail us</a></div>')}</div>`,
    { layout: { type: 'flex', justifyContent: 'center' } },
  );
  const html = await render(buttons);
  t.match(html, '<td align="center">');
  t.match(html, '<td bgcolor="#aa3300" style="background-color:#aa3300;border-radius:4px"><a href="https://example.com/go?a=1&amp;b=2" style="');
  t.match(html, '>Go <em>now</em></a>');
  t.match(html, '<td bgcolor="#1a56db"', 'no colour given: the primary colour');
  t.match(html, 'href="mailto:help@example.com"');
  const bad = await render(
    block('button', '<div class="wp-block-button"><a class="wp-block-button__link" href="javascript:alert(1)">Click</a></div>', {
      style: { color: { background: 'red;background:url(x)' } },
    }),
  );
  t.match(bad, '<span style="display:inline-block');
  t.notMatch(bad, 'javascript');
  t.notMatch(bad, 'url(x)', 'a colour that is not #hex is not written into a style');
});

t.test('separator, spacer (height kept between 1 and 160 px), group with a background, columns sharing what widths leave', async (t) => {
  t.match(await render(block('separator', '<hr class="wp-block-separator"/>')), /^<table [^>]*><tr><td style="border-top:1px solid #dddddd/);
  t.match(await render(block('spacer', '<div style="height:40px" class="wp-block-spacer"></div>', { height: '40px' })), 'height="40"');
  t.match(await render(block('spacer', '<div></div>', { height: '5000px' })), 'height="160"');
  t.match(await render(block('spacer', '<div></div>', { height: '1px;x:expression(alert(1))' })), 'height="100"', 'a height that is no size: the default');
  const group = await render(block('group', `<div class="wp-block-group">${block('paragraph', '<p>Inside</p>')}</div>`, { style: { color: { background: '#eeeeee' } } }));
  t.match(group, /<td bgcolor="#eeeeee" [^>]*><p [^>]*>Inside<\/p><\/td>/);
  const cols = await render(
    block(
      'columns',
      `<div class="wp-block-columns">${block('column', `<div class="wp-block-column">${block('paragraph', '<p>Left</p>')}</div>`, { width: '60%' })}${block('column', `<div>${block('paragraph', '<p>Mid</p>')}</div>`)}${block('column', `<div>${block('paragraph', '<p>Right</p>')}</div>`)}</div>`,
    ),
  );
  t.match(cols, /<td valign="top" width="60%"[^>]*><p [^>]*>Left<\/p><\/td><td valign="top" width="20.00%"[^>]*><p [^>]*>Mid<\/p><\/td><td valign="top" width="20.00%"/);
});

t.test('a quote: its paragraphs and its citation; the older quote that kept its paragraphs in its HTML', async (t) => {
  const html = await render(block('quote', `<blockquote class="wp-block-quote">${block('paragraph', '<p>Said</p>')}<cite>Ada</cite></blockquote>`));
  t.match(html, /^<blockquote style="[^"]*"><p [^>]*>Said<\/p><p [^>]*>— Ada<\/p><\/blockquote>$/);
  t.match(await render(block('quote', '<blockquote class="wp-block-quote"><p>Old</p><cite>Bo</cite></blockquote>')), /<p>Old<\/p><p [^>]*>— Bo<\/p>/);
});

t.test('raw HTML (core/html) and HTML between blocks are sanitised: email tags kept, scripts, handlers, frames and bad URLs dropped', async (t) => {
  const raw = `<div onclick="steal()" style="color:#ff0000;background:url(https://t.example/x)"><b>kept</b>${SCRIPT}<iframe src="https://e.example"></iframe><a href="javascript:alert(1)">js</a><a href="https://ok.example">ok</a><img src="data:image/png;base64,AA"><form><input name="p"></form><style>body{}</style></div>`;
  const html = await render(block('html', raw));
  t.match(html, '<b>kept</b>');
  t.match(html, '<a href="https://ok.example/" style="color:#1a56db;text-decoration:underline">ok</a>');
  t.match(html, '<span>js</span>');
  t.match(html, 'color:#ff0000', 'a plain style stays');
  t.notMatch(html, 'url(', 'a style loading a URL does not');
  t.notMatch(html, 'alert');
  assertInert(t, html);
  const between = await render(`<p onmouseover="x()">Classic ${SCRIPT}</p>\n${block('paragraph', '<p>Block</p>')}`);
  t.match(between, /^<p>Classic <\/p>\n<p [^>]*>Block<\/p>$/);
});

t.test('an unknown block is its inner text, escaped, and what it holds rendered', async (t) => {
  const html = await render(block('acme/widget', `<div class="x">Some <em>text</em> &lt;b&gt; ${SCRIPT}${block('paragraph', '<p>Inside</p>')}</div>`));
  t.equal(html, '<p style="margin:0 0 16px">Some text &lt;b&gt;</p>\n<p style="margin:0 0 16px">Inside</p>');
});

t.test('smartcodes: escaped in text and attributes, as typed in the text part, checked as URLs where they are links', async (t) => {
  const values = { 'team.name': `${SCRIPT} & co`, 'inviter.name': '"><img src=x onerror=alert(1)>', 'invitation.url': 'javascript:alert(1)' };
  const markup = [
    block('paragraph', '<p>Join <b>{{team.name}}</b>, says {{inviter.name}}</p>'),
    block('image', '<figure><img src="https://cdn.example.com/a.png" alt="{{inviter.name}}"/></figure>'),
    block('buttons', `<div>${block('button', '<div><a class="wp-block-button__link" href="{{invitation.url}}">{{team.name}}</a></div>')}</div>`),
  ].join('\n');
  const email = await renderBlockEmail({ subject: 'Join {{team.name}}', body: markup }, DEFAULT_LAYOUT, values, NO_BLOCKS);
  t.match(email.html, 'Join <b>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</b>, says "&gt;&lt;img src=x onerror=alert(1)&gt;');
  t.match(email.html, 'alt="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  t.match(email.html, '<title>Join &lt;script&gt;alert(1)&lt;/script&gt; &amp; co</title>', 'the subject in the document is escaped');
  t.notMatch(email.html, 'href="javascript', 'a smartcode value that is a javascript: URL links nowhere');
  assertInert(t, email.html, ['meta']);
  t.equal(email.subject, `Join ${SCRIPT} & co`, 'the subject header as typed');
  t.match(email.text, `Join ${SCRIPT} & co, says "><img src=x onerror=alert(1)>`, 'the text part as typed');
  t.notMatch(email.text, '&lt;');
});

t.test('a value cannot add blocks: block comments in a value are text', async (t) => {
  const html = await render(block('paragraph', '<p>{{team.name}}</p>'), { 'team.name': '<!-- wp:html --><script>x()</script><!-- /wp:html -->' });
  t.equal(html, '<p style="margin:0 0 16px">&lt;!-- wp:html --&gt;&lt;script&gt;x()&lt;/script&gt;&lt;!-- /wp:html --&gt;</p>');
});

t.test('sections of the markup are kept or dropped by their values, across blocks', async (t) => {
  const markup = `{{#ticket.url}}${block('paragraph', '<p>Read: <a href="{{ticket.url}}">it</a></p>')}{{/ticket.url}}${block('paragraph', '<p>End</p>')}`;
  t.match(await render(markup, { 'ticket.url': 'https://dash.example.com/t/1' }), '<a href="https://dash.example.com/t/1"');
  t.equal(await render(markup, { 'ticket.url': '' }), '<p style="margin:0 0 16px">End</p>');
});

t.test('the email document: tables and inline styles, no stylesheet; the text part from the same HTML', async (t) => {
  const layout = { ...DEFAULT_LAYOUT, footer: 'Acme, 1 Road', logoUrl: 'https://cdn.example.com/logo.png' };
  const markup = [
    block('heading', '<h2>Welcome {{team.name}}</h2>'),
    block('paragraph', '<p>Accept: <a href="{{invitation.url}}">here</a></p>'),
    block('list', `<ul>${block('list-item', '<li>One</li>')}</ul>`),
    block('separator', '<hr/>'),
    block('spacer', '<div></div>', { height: '24px' }),
    block('buttons', `<div>${block('button', '<div><a href="{{invitation.url}}">Accept</a></div>')}</div>`),
  ].join('\n');
  const email = await renderBlockEmail({ subject: 'Hi', body: markup }, layout, { 'team.name': 'Acme', 'invitation.url': 'https://dash.example.com/a?t=1' }, NO_BLOCKS);
  t.match(email.html, /^<!doctype html>/);
  t.match(email.html, '<table role="presentation"');
  t.notMatch(email.html, /<style|<link|class="/, 'no stylesheet and no class to style');
  t.match(email.html, '<img src="https://cdn.example.com/logo.png"');
  t.equal(email.text, 'Welcome Acme\n\nAccept: here https://dash.example.com/a?t=1\n\n * One\n\nAccept https://dash.example.com/a?t=1\n\nAcme, 1 Road\n');
});

t.test('references: reusable blocks and template parts through the port, nested, with smartcodes; missing, cyclic, too deep or too many render nothing', async (t) => {
  const asked: string[] = [];
  const blocks = (id: number): string | null => {
    if (id === 1) return block('paragraph', '<p>Reusable {{team.name}}</p>');
    if (id === 2) return `<!-- wp:block {"ref":2} /-->${block('paragraph', '<p>Loop</p>')}`;
    if (id === 3) return '<!-- wp:template-part {"slug":"deep"} /-->';
    if (id === 4) return Array.from({ length: 60 }, () => '<!-- wp:block {"ref":1} /-->').join('');
    if (id >= 100) return `${block('paragraph', `<p>${id}</p>`)}<!-- wp:block {"ref":${id + 1}} /-->`;
    return null;
  };
  const parts: Record<string, string> = { footer: `${block('paragraph', '<p>Footer</p>')}<!-- wp:block {"ref":1} /-->`, deep: '<!-- wp:block {"ref":3} /-->' };
  const source: BlockSource = {
    reusableBlock: (id) => {
      asked.push(`block:${id}`);
      return Promise.resolve(blocks(id));
    },
    templatePart: (slug) => {
      asked.push(`part:${slug}`);
      return Promise.resolve(parts[slug] ?? null);
    },
  };
  const values = { 'team.name': SCRIPT };
  t.equal(await render('<!-- wp:block {"ref":1} /-->', values, source), '<p style="margin:0 0 16px">Reusable &lt;script&gt;alert(1)&lt;/script&gt;</p>');
  t.equal(
    await render('<!-- wp:template-part {"slug":"footer","theme":"tern"} /-->', values, source),
    '<p style="margin:0 0 16px">Footer</p>\n<p style="margin:0 0 16px">Reusable &lt;script&gt;alert(1)&lt;/script&gt;</p>',
    'a part holding a reusable block',
  );
  t.equal(await render('<!-- wp:block {"ref":99} /-->', values, source), '', 'not found: nothing');
  t.equal(await render('<!-- wp:block {"ref":"1"} /--><!-- wp:template-part /-->', values, source), '', 'a reference that names nothing: nothing');
  t.equal(await render('<!-- wp:block {"ref":2} /-->', values, source), '<p style="margin:0 0 16px">Loop</p>', 'a block naming itself is not looked up again');
  asked.length = 0;
  t.equal(await render('<!-- wp:block {"ref":3} /-->', values, source), '', 'two references naming each other end');
  t.same(asked, ['block:3', 'part:deep'], 'each looked up once');
  const many = await render('<!-- wp:block {"ref":4} /-->', values, source);
  t.equal(many.split('<p ').length - 1, MAX_REFERENCES - 1, `at most ${MAX_REFERENCES} look-ups in one render`);
  const chain = await render('<!-- wp:block {"ref":100} /-->', values, source);
  t.equal(chain.split('<p ').length - 1, MAX_REFERENCE_DEPTH, `references nest ${MAX_REFERENCE_DEPTH} deep at most`);
  t.equal(await render('<!-- wp:block {"ref":1} /-->', values), '', 'the source Tern ships finds nothing');
});

t.test('the parser is WordPress’s: it reads a block’s attributes and leaves invalid ones out', async (t) => {
  t.same(parse('<!-- wp:heading {"level":3} -->\n<h3>x</h3>\n<!-- /wp:heading -->')[0]?.attrs, { level: 3 });
  t.equal(await render('<!-- wp:heading {"level":3 -->\n<h3>Broken attrs</h3>\n<!-- /wp:heading -->'), '<h3>Broken attrs</h3>', 'not a block comment: HTML, sanitised');
});
