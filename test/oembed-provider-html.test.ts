// The html the oEmbed proxy answers for another site's embed, as WordPress's data2html and wp_filter_oembed_result
// write it: a photo and a link from the provider's fields (escaped), a rich or video embed reduced to a blockquote
// and a sandboxed iframe (http or https source only), none at all without an iframe.
import t from 'tap';
import { embedHtmlOf, untrustedEmbedHtml } from '../shared/core/embeds/provider-html.js';

const page = 'https://photos.example/p/1?a=1&b=2';

t.test('a photo is an image linking the page; without url, width or height it has no html', async (t) => {
  const html = embedHtmlOf({ type: 'photo', url: 'https://cdn.example/1.jpg', width: 640, height: 480, title: '"Sunset" <b>' }, page);
  t.equal(
    html,
    '<a href="https://photos.example/p/1?a=1&amp;b=2"><img src="https://cdn.example/1.jpg" alt="&quot;Sunset&quot; &lt;b&gt;" width="640" height="480" /></a>',
  );
  t.equal(embedHtmlOf({ type: 'photo', url: 'https://cdn.example/1.jpg' }, page), null);
});

t.test('a link is its title linking the page; an unknown type has no html', async (t) => {
  t.equal(embedHtmlOf({ type: 'link', title: 'Tom & Jerry' }, page), '<a href="https://photos.example/p/1?a=1&amp;b=2">Tom &amp; Jerry</a>');
  t.equal(embedHtmlOf({ type: 'link' }, page), null);
  t.equal(embedHtmlOf({ type: 'applet', html: '<iframe></iframe>' }, page), null);
});

t.test('a rich embed keeps only an http(s) iframe, sandboxed, and its blockquote', async (t) => {
  const js = untrustedEmbedHtml('<iframe src="javascript:alert(1)"></iframe>');
  t.match(js, /^<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted" data-secret="\w{10}"><\/iframe>$/, 'a javascript: source is dropped');
  const framed = untrustedEmbedHtml('<div><p>before</p><iframe src="https://v.example/e#x" title="Video" allow="camera" srcdoc="<script>1</script>"></iframe></div>');
  t.match(
    framed,
    /^<iframe src="https:\/\/v\.example\/e#\?secret=(\w{10})" title="Video" class="wp-embedded-content" sandbox="allow-scripts" security="restricted" data-secret="\1"><\/iframe>$/,
  );
  t.equal(untrustedEmbedHtml('<p>no frame</p><object data="x"></object>'), null);
  t.equal(embedHtmlOf({ type: 'video', html: 42 }, page), null, 'html that is no text is no embed');
});
