/**
 * HTTP framing: NUL bytes, heads over node's limits, HTTP/1.0 and request smuggling shapes.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import { bytes, FORM, get, head, MIB, PUBLIC, post, soap11, VALID11 } from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('HTTP framing: NUL bytes, long heads, HTTP/1.0 and smuggling');
export const httpFraming = theme;

/** A POST whose head is written exactly as given (framing cases). */
function rawPost(target: string, headers: readonly string[], body: string): Buffer {
  return bytes(head(`POST ${target} HTTP/1.1`, ['Host: localhost', ...headers]), body);
}

// -- NUL bytes and very long requests (node's limits).
add(
  'http NUL in the target',
  'http',
  'BAD_REQUEST',
  bytes(
    `GET ${PUBLIC}/getBereich\u0000?bereichID=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
  ),
);
add(
  'http NUL in a header value',
  'http',
  'BAD_REQUEST',
  get(`${PUBLIC}/getBereich?bereichID=1`, ['X-A: a\u0000b']),
);
add('http NUL in SOAPAction', 'http', 'BAD_REQUEST', soap11(PUBLIC, VALID11, ['SOAPAction: "a\u0000b"']));
add('http 20 KB path', 'http', 'HEADERS_TOO_LARGE', get(`/${'a'.repeat(20_000)}`));
add(
  'http 100 KB query',
  'http',
  'HEADERS_TOO_LARGE',
  get(`${PUBLIC}/getBereich?bereichID=1&x=${'a'.repeat(100_000)}`),
);
add('http 1 MB query', 'http', 'HEADERS_TOO_LARGE', get(`${PUBLIC}/getBereich?x=${'a'.repeat(MIB)}`));
add(
  'http 20 KB header value',
  'http',
  'HEADERS_TOO_LARGE',
  get(`${PUBLIC}/getBereich?bereichID=1`, [`X-Long: ${'b'.repeat(20_000)}`]),
);
add(
  'http 80 header fields',
  'http',
  'HEADERS_TOO_LARGE',
  get(
    `${PUBLIC}/getBereich?bereichID=1`,
    Array.from({ length: 80 }, (_, i) => `X-H${i}: ${i}`),
  ),
);
add(
  'httpget 3,000 unknown parameters are ignored',
  'httpget',
  'MISSING_PARAMETER',
  get(`${PUBLIC}/getBereich?${'a=1&'.repeat(3_000)}`),
);

// -- HTTP/1.0 and request smuggling shapes.
add(
  'httpget HTTP/1.0 with a bad parameter',
  'httpget',
  'INVALID_PARAMETER',
  bytes(`GET ${PUBLIC}/getBereich?bereichID=x HTTP/1.0\r\n\r\n`),
);
add('http HTTP/1.0 path traversal', 'http', 'NOT_FOUND', bytes('GET /../package.json HTTP/1.0\r\n\r\n'));
add(
  'httppost HTTP/1.0 with bad percent-encoding',
  'httppost',
  'INVALID_ENCODING',
  bytes(
    `POST ${PUBLIC}/getBereich HTTP/1.0\r\nContent-Type: ${FORM}\r\nContent-Length: 12\r\n\r\nbereichID=%Z`,
  ),
);
add(
  'http HTTP/1.0 with Transfer-Encoding',
  'http',
  'BAD_REQUEST',
  bytes(
    `POST ${PUBLIC}/getBereich HTTP/1.0\r\nContent-Type: ${FORM}\r\nTransfer-Encoding: chunked\r\n\r\nb\r\nbereichID=1\r\n0\r\n\r\n`,
  ),
);
add(
  'http HTTP/1.1 without Host',
  'http',
  'BAD_REQUEST',
  bytes(`GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nConnection: close\r\n\r\n`),
);
add(
  'http invalid Host',
  'http',
  'BAD_REQUEST',
  bytes(head(`GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1`, ['Host: a b/c', 'Connection: close'])),
);
add(
  'http two Host headers',
  'http',
  'DUPLICATE_HEADER',
  get(`${PUBLIC}/getBereich?bereichID=1`, ['Host: evil.example']),
);
add(
  'http Expect other than 100-continue',
  'http',
  'BAD_REQUEST',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=1', ['Expect: 200-ok']),
);
{
  const chunked = (te: string, body: string, extra: readonly string[] = []) =>
    rawPost(`${PUBLIC}/getBereich`, [`Content-Type: ${FORM}`, ...extra, te, 'Connection: close'], body);
  const good = 'b\r\nbereichID=1\r\n0\r\n\r\n';
  for (const [name, request] of [
    [
      'Content-Length and Transfer-Encoding',
      chunked('Transfer-Encoding: chunked', good, ['Content-Length: 4']),
    ],
    [
      'Transfer-Encoding then Content-Length',
      chunked('Content-Length: 30', good, ['Transfer-Encoding: chunked']),
    ],
    ['chunk size not hex', chunked('Transfer-Encoding: chunked', 'zz\r\nbereichID=1\r\n0\r\n\r\n')],
    ['negative chunk size', chunked('Transfer-Encoding: chunked', '-b\r\nbereichID=1\r\n0\r\n\r\n')],
    [
      'chunk size overflowing 64 bits',
      chunked('Transfer-Encoding: chunked', 'fffffffffffffffff\r\nbereichID=1\r\n0\r\n\r\n'),
    ],
    ['space after the chunk size', chunked('Transfer-Encoding: chunked', 'b \r\nbereichID=1\r\n0\r\n\r\n')],
    [
      'chunk data longer than its size',
      chunked('Transfer-Encoding: chunked', 'b\r\nbereichID=1XX\r\n0\r\n\r\n'),
    ],
    ['an unknown transfer coding', chunked('Transfer-Encoding: xchunked', good)],
    ['gzip under chunked', chunked('Transfer-Encoding: gzip, chunked', good)],
    ['identity', chunked('Transfer-Encoding: identity', 'bereichID=1')],
    ['chunked then identity', chunked('Transfer-Encoding: chunked, identity', good)],
    ['Transfer-Encoding twice', chunked('Transfer-Encoding: chunked', good, ['Transfer-Encoding: chunked'])],
    ['Transfer-Encoding folded (obs-fold)', chunked('Transfer-Encoding:\r\n chunked', good)],
    ['space before the colon', chunked('Transfer-Encoding : chunked', good)],
    ['vertical tab in Transfer-Encoding', chunked('Transfer-Encoding:\u000bchunked', good)],
    ['two different Content-Lengths', chunked('Content-Length: 11', 'bereichID=1', ['Content-Length: 12'])],
    ['two equal Content-Lengths', chunked('Content-Length: 11', 'bereichID=1', ['Content-Length: 11'])],
    ['a Content-Length list', chunked('Content-Length: 11, 11', 'bereichID=1')],
    ['a negative Content-Length', chunked('Content-Length: -1', 'bereichID=1')],
    ['a signed Content-Length', chunked('Content-Length: +11', 'bereichID=1')],
    ['a hexadecimal Content-Length', chunked('Content-Length: 0xb', 'bereichID=1')],
    ['an obsolete folded header', chunked('Content-Length: 11', 'bereichID=1', ['X-Folded: a', ' b'])],
  ] as const) {
    add(`http smuggling: ${name}`, 'http', 'BAD_REQUEST', request);
  }
  add(
    'http smuggling: bare LF line ends',
    'http',
    'BAD_REQUEST',
    bytes(`GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\nHost: localhost\nConnection: close\n\n`),
  );
  add(
    'http smuggling: bare CR in the head',
    'http',
    'BAD_REQUEST',
    bytes(
      `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: localhost\rX-A: b\r\nConnection: close\r\n\r\n`,
    ),
  );
}
