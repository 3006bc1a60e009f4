/**
 * Header injection attempts, invalid percent-encoding, invalid UTF-8, characters XML forbids
 * and charsets.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bereich11,
  bytes,
  envelope,
  FORM,
  get,
  head,
  op,
  PUBLIC,
  post,
  soap11,
  soap12,
  TOKEN,
  utf8,
  V6,
  VALID11,
  VALID12,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('header injection, percent-encoding and character encodings');
export const encoding = theme;

// -- header injection attempts: CR/LF in values must never become response headers.
add(
  'httpget %0d%0a in a value',
  'httpget',
  'INVALID_PARAMETER',
  get(`${PUBLIC}/getBereich?bereichID=1%0d%0aSet-Cookie:%20injected=1`),
);
add(
  'httpget %0d%0a in a name',
  'httpget',
  'MISSING_PARAMETER',
  get(`${PUBLIC}/getBereich?x%0d%0aSet-Cookie:%20injected=1`),
);
add(
  'httppost %0d%0a in a value',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=%0d%0aX-Injected:%201'),
);
add(
  'httpget %0d%0a in the e-mail is only a string',
  'httpget',
  'ok',
  get(`${V6}/getAbonnierteNewsletter?email=a%0d%0aSet-Cookie:%20injected=1`, [
    `Authorization: Bearer ${TOKEN}`,
  ]),
);
add(
  'soap11 CR/LF character references in a value',
  'soap11',
  'INVALID_PARAMETER',
  soap11(PUBLIC, bereich11('<bereichID>1&#13;&#10;Set-Cookie: injected=1</bereichID>')),
);
add(
  'httpget %0d%0a in the operation name',
  'httpget',
  'UNKNOWN_OPERATION',
  get(`${PUBLIC}/get%0d%0aSet-Cookie:%20injected=1`),
);
add(
  'http HTTP/2.0 in an HTTP/1 request line',
  'http',
  'BAD_REQUEST',
  bytes(head(`GET ${PUBLIC}/getBereich?bereichID=1 HTTP/2.0`, ['Host: localhost', 'Connection: close'])),
);
add(
  'http HTTP/0.9 request line followed by header fields',
  'http',
  'BAD_REQUEST',
  bytes(`GET ${PUBLIC}/getBereich?bereichID=1\r\nHost: localhost\r\n\r\n`),
);
add(
  'http raw CR/LF in the target',
  'http',
  'BAD_REQUEST',
  bytes(
    `GET ${PUBLIC}/getBereich?bereichID=1\r\nSet-Cookie: injected=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
  ),
);
add(
  'httpget %0d%0a in X-Request-Id is not echoed',
  'httpget',
  'ok',
  get(`${PUBLIC}/getBereich?bereichID=1`, ['X-Request-Id: a%0d%0aSet-Cookie:%20injected=1']),
);

// -- invalid percent-encoding and invalid UTF-8.
for (const [name, query] of [
  ['a lone %', 'bereichID=%'],
  ['% and one digit', 'bereichID=%4'],
  ['%%', 'bereichID=%%31'],
  ['%G0', 'bereichID=%G0'],
  ['invalid UTF-8 (%C3%28)', 'bereichID=%C3%28'],
  ['an encoded surrogate', 'bereichID=%ED%A0%80'],
  ['an overlong encoding', 'bereichID=%C0%AF'],
  ['beyond U+10FFFF', 'bereichID=%F4%90%80%80'],
  ['a truncated sequence', 'bereichID=%E2%82'],
  ['a bad escape in the name', '%ZZ=1'],
] as const) {
  add(
    `httpget percent-encoding: ${name}`,
    'httpget',
    'INVALID_ENCODING',
    get(`${PUBLIC}/getBereich?${query}`),
  );
}
// -- characters XML forbids (XML 1.0 §2.2) in string parameters: not an xs:string.
for (const [name, value] of [
  ['NUL', '%00'],
  ['U+0001 inside', 'a%01b%40example.org'],
  ['a vertical tab', 'a%0Bb%40example.org'],
  ['U+FFFE', '%EF%BF%BE'],
  ['U+FFFF at the end', 'a%40example.org%EF%BF%BF'],
] as const) {
  add(
    `httpget a forbidden character in a string: ${name}`,
    'httpget',
    'INVALID_PARAMETER',
    get(`${V6}/getAbonnierteNewsletter?email=${value}`, [`Authorization: Bearer ${TOKEN}`]),
  );
}
add(
  'httppost a forbidden character in a string: U+0001',
  'httppost',
  'INVALID_PARAMETER',
  post(`${V6}/getAbonnierteNewsletter`, FORM, 'email=%01', [`Authorization: Bearer ${TOKEN}`]),
);
add(
  'httppost a forbidden character in a string: U+FFFE',
  'httppost',
  'INVALID_PARAMETER',
  post(`${V6}/getAbonnierteNewsletter`, FORM, 'email=x%EF%BF%BEy', [`Authorization: Bearer ${TOKEN}`]),
);
add(
  'httppost a raw U+001F byte in a string',
  'httppost',
  'INVALID_PARAMETER',
  post(`${V6}/getAbonnierteNewsletter`, FORM, bytes('email=a\u001fb'), [`Authorization: Bearer ${TOKEN}`]),
);
add(
  'httppost a forbidden character in resizeModes',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBild`, FORM, 'bildID=201&width=0&height=0&resizeModes=fit%00'),
);

add(
  'httppost percent-encoding: %FF',
  'httppost',
  'INVALID_ENCODING',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=%FF'),
);
add(
  'httppost percent-encoding: overlong NUL',
  'httppost',
  'INVALID_ENCODING',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=1&x=%C0%80'),
);
add(
  'httppost raw invalid UTF-8 in the body',
  'httppost',
  'INVALID_ENCODING',
  post(`${PUBLIC}/getBereich`, FORM, bytes('bereichID=1&x=', Buffer.from([0xff, 0xfe]))),
);
add(
  'httppost raw NUL in the body',
  'httppost',
  'INVALID_PARAMETER',
  post(`${PUBLIC}/getBereich`, FORM, bytes('bereichID=1\u0000')),
);
add(
  'httppost unsupported charset',
  'httppost',
  'INVALID_ENCODING',
  post(`${PUBLIC}/getBereich`, `${FORM}; charset=utf-16`, 'bereichID=1'),
);
add(
  'http raw invalid UTF-8 in the query',
  'http',
  'BAD_REQUEST',
  bytes(
    `GET ${PUBLIC}/getBereich?bereichID=`,
    Buffer.from([0xc3, 0x28]),
    ' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
  ),
);
add(
  'httpget percent-encoding in the path is not decoded',
  'httpget',
  'UNKNOWN_OPERATION',
  get(`${PUBLIC}/%ZZ`),
);
for (const [name, raw] of [
  ['a lone 0xFF', [0xff]],
  ['0xC3 0x28', [0xc3, 0x28]],
  ['an overlong <', [0xc0, 0xbc]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['a five-byte sequence', [0xf8, 0x88, 0x80, 0x80, 0x80]],
] as const) {
  const body = (xml: string) => bytes(xml.replace('>1<', '>'), Buffer.from(raw));
  add(
    `soap11 invalid UTF-8: ${name}`,
    'soap11',
    'INVALID_ENCODING',
    soap11(
      PUBLIC,
      bytes(
        body(VALID11.slice(0, VALID11.indexOf('</bereichID>'))),
        VALID11.slice(VALID11.indexOf('</bereichID>')),
      ),
    ),
  );
}
add(
  'soap12 invalid UTF-8: truncated at the end',
  'soap12',
  'INVALID_ENCODING',
  soap12(PUBLIC, bytes(utf8(VALID12), Buffer.from([0xe2, 0x82]))),
);
add(
  'soap12 invalid UTF-8: ISO-8859-1 bytes sent as UTF-8',
  'soap12',
  'INVALID_ENCODING',
  soap12(
    V6,
    Buffer.from(
      envelope('1.2', op('getAbonnierteNewsletter', '<email>jörg@example.org</email>'), AUTH),
      'latin1',
    ),
  ),
);
add(
  'soap11 UTF-16 charset',
  'soap11',
  'INVALID_ENCODING',
  post(PUBLIC, 'text/xml; charset=utf-16', Buffer.from(VALID11, 'utf16le')),
);
add(
  'soap12 unknown charset',
  'soap12',
  'INVALID_ENCODING',
  post(PUBLIC, 'application/soap+xml; charset=ebcdic-cp-us', VALID12),
);
add('soap11 empty charset', 'soap11', 'INVALID_ENCODING', post(PUBLIC, 'text/xml; charset=""', VALID11));
