// The webhook URL rules of the specification, as a table over checkWebhookUrl: scheme and port, length, and a
// public host name only (no localhost, no IP literal in any spelling, a host under a public suffix).
import t from 'tap';
import { checkWebhookUrl, WEBHOOK_URL_MAX } from '../shared/webhook-url.js';

/** A URL of exactly `length` characters on a public host. */
function urlOfLength(length: number, prefix = 'https://hooks.example.com/'): string {
  return prefix + 'a'.repeat(length - prefix.length);
}

const accepted: Array<[string, string]> = [
  ['https on the default port', 'https://hooks.example.com/tern'],
  ['https on an unusual port', 'https://hooks.example.com:9443/tern'],
  ['http on the default port', 'http://hooks.example.com/tern'],
  ['http on port 80 written out', 'http://hooks.example.com:80/tern'],
  ['http on port 443', 'http://hooks.example.com:443/tern'],
  ['http on port 8080', 'http://hooks.example.com:8080/tern'],
  ['a host under a two-label public suffix', 'https://hooks.example.co.uk/'],
  ['a registrable domain itself', 'https://example.com'],
  ['a host with a query and fragment', 'https://hooks.example.com/x?a=1#b'],
  ['an internationalised host name', 'https://пример.рф/hook'],
  ['a host whose first labels look like an address', 'https://10.0.0.1.example.com/'],
  ['an upper-case scheme and host', 'HTTPS://HOOKS.EXAMPLE.COM/Tern'],
  ['a space and a line break already percent-encoded', 'https://hooks.example.com/a%20b%0D%0A'],
  ['exactly 2,048 characters', urlOfLength(2048)],
];

const refused: Array<[string, string]> = [
  ['2,049 characters', urlOfLength(2049)],
  ['http on port 8081', 'http://hooks.example.com:8081/'],
  ['http on port 8443', 'http://hooks.example.com:8443/'],
  ['https on port 0', 'https://hooks.example.com:0/'],
  ['an ftp url', 'ftp://hooks.example.com/'],
  ['a javascript url', 'javascript:alert(1)'],
  ['text that is not a url', 'not a url'],
  ['a relative path', '/webhooks/tern'],
  ['an empty string', ''],
  ['localhost', 'https://localhost/hook'],
  ['localhost with a port', 'http://localhost:8080/hook'],
  ['localhost with a trailing dot', 'https://localhost./hook'],
  ['a name under .localhost', 'https://api.localhost/hook'],
  ['a public IPv4 literal', 'https://93.184.216.34/hook'],
  ['a private 10.x literal', 'https://10.1.2.3/hook'],
  ['a private 192.168.x literal', 'https://192.168.1.10/hook'],
  ['a private 172.16.x literal', 'https://172.16.0.1/hook'],
  ['a link-local 169.254.x literal', 'https://169.254.169.254/latest/meta-data'],
  ['a loopback literal', 'http://127.0.0.1/hook'],
  ['loopback in hexadecimal', 'https://0x7f000001/hook'],
  ['loopback as a decimal integer', 'https://2130706433/hook'],
  ['loopback in short dotted form', 'https://127.1/hook'],
  ['loopback in octal', 'https://0177.0.0.1/hook'],
  ['an address with a trailing dot', 'https://10.0.0.1./hook'],
  ['an address spelled with percent-encoding', 'https://%31%30.0.0.1/hook'],
  ['the IPv6 loopback', 'https://[::1]/hook'],
  ['the IPv6 loopback written out', 'https://[0:0:0:0:0:0:0:1]/hook'],
  ['an IPv4-mapped IPv6 address', 'https://[::ffff:127.0.0.1]/hook'],
  ['a public IPv6 literal', 'https://[2001:db8::1]/hook'],
  ['the unspecified address', 'https://0/hook'],
  ['a single-label host', 'https://foo/hook'],
  ['a host under .internal', 'https://example.internal/hook'],
  ['a host under .local', 'https://host.local/hook'],
  ['a host under a reserved test suffix', 'https://hooks.example.test/'],
  ['a bare public suffix', 'https://co.uk/hook'],
  ['a reverse-DNS name', 'https://1.0.0.127.in-addr.arpa/hook'],
];

t.test('webhook urls the specification allows are accepted', async (t) => {
  for (const [name, url] of accepted) {
    const result = checkWebhookUrl(url);
    t.ok(result.ok, `${name}: ${url.slice(0, 80)}`);
  }
});

t.test('webhook urls the specification forbids are refused with a reason', async (t) => {
  for (const [name, url] of refused) {
    const result = checkWebhookUrl(url);
    t.notOk(result.ok, `${name}: ${url.slice(0, 80)}`);
    if (!result.ok) t.match(result.reason, /\S/, `${name} says why`);
  }
});

t.test('a url with whitespace, control or invisible characters anywhere is refused, naming why, never stored rewritten', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['CR LF and a header in the path', 'https://hooks.example.com/x\r\nX-Injected: y', /control|whitespace/],
    ['a bare LF in the path', 'https://hooks.example.com/x\ny', /control|whitespace/],
    ['a tab in the host', 'https://hooks.exam\tple.com/x', /control|whitespace/],
    ['a space in the path', 'https://hooks.example.com/a b', /whitespace/],
    ['a space in the query', 'https://hooks.example.com/x?a=b c', /whitespace/],
    ['a leading space', ' https://hooks.example.com/x', /whitespace/],
    ['a trailing space', 'https://hooks.example.com/x ', /whitespace/],
    ['a trailing new line', 'https://hooks.example.com/x\n', /control|whitespace/],
    ['a NUL', 'https://hooks.example.com/x\u0000', /control/],
    ['a DEL', 'https://hooks.example.com/x\u007f', /control/],
    ['a C1 control (NEL)', 'https://hooks.example.com/x\u0085', /control/],
    ['a C1 control (CSI)', 'https://hooks.example.com/x\u009b', /control/],
    ['a no-break space', 'https://hooks.example.com/x\u00a0', /whitespace/],
    ['a line separator', 'https://hooks.example.com/x\u2028', /whitespace/],
    ['a zero-width space in the host', 'https://hooks.exa\u200bmple.com/x', /invisible/],
    ['a soft hyphen in the host', 'https://hooks.exa\u00admple.com/x', /invisible/],
  ];
  for (const [name, url, reason] of cases) {
    const result = checkWebhookUrl(url);
    t.notOk(result.ok, `${name} is refused`);
    if (!result.ok) t.match(result.reason, reason, `${name}: ${result.reason}`);
  }
});

t.test('the accepted url is the normalised form that is stored', async (t) => {
  t.same(checkWebhookUrl('HTTPS://Hooks.Example.COM/Path'), { ok: true, url: 'https://hooks.example.com/Path' });
  t.same(checkWebhookUrl('http://hooks.example.com:80/x'), { ok: true, url: 'http://hooks.example.com/x' });
  t.same(checkWebhookUrl('https://пример.рф/'), { ok: true, url: 'https://xn--e1afmkfd.xn--p1ai/' });
});

t.test('the length limit is 2,048 and also holds for the normalised form', async (t) => {
  t.equal(WEBHOOK_URL_MAX, 2048);
  // 2,048 characters as typed, but percent-encoding makes each é six characters long once stored.
  const prefix = 'https://hooks.example.com/';
  const typed = prefix + 'é'.repeat(2048 - prefix.length);
  t.equal(typed.length, 2048);
  const result = checkWebhookUrl(typed);
  t.notOk(result.ok, 'a url that grows beyond the limit when normalised is refused');
  const fits = prefix + 'é'.repeat(300);
  const ok = checkWebhookUrl(fits);
  t.ok(ok.ok && ok.url.length <= 2048, 'a normalised url within the limit is accepted');
});
