/**
 * Wrong methods, wrong content types and oversized declared bodies (chunked ones are streamed
 * by test/hostile.test.ts itself).
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  bytes,
  FORM,
  get,
  head,
  PUBLIC,
  post,
  VALID11,
  VALID12,
  XML11,
  XML12,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('methods, content types and declared body sizes');
export const methodsAndMediaTypes = theme;

// -- wrong methods.
for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND'])
  add(
    `httpget ${method} on an operation`,
    'http',
    'METHOD_NOT_ALLOWED',
    get(`${PUBLIC}/getBereich?bereichID=1`, [], method),
  );
for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'])
  add(
    `soap ${method} on an endpoint`,
    'http',
    'METHOD_NOT_ALLOWED',
    bytes(post(PUBLIC, XML11, VALID11).toString('latin1').replace(/^POST/, method)),
  );
add(
  'http CONNECT',
  'http',
  'METHOD_NOT_ALLOWED',
  bytes(head('CONNECT 127.0.0.1:22 HTTP/1.1', ['Host: 127.0.0.1:22'])),
);
add('http unknown method', 'http', 'BAD_REQUEST', get(`${PUBLIC}/getBereich?bereichID=1`, [], 'FOO'));
add('http lower-case method', 'http', 'BAD_REQUEST', get(`${PUBLIC}/getBereich?bereichID=1`, [], 'get'));
add('http DELETE on the root', 'http', 'NOT_FOUND', get('/', [], 'DELETE'));

// -- wrong content types.
for (const type of [
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  FORM,
  'application/xml',
  'text',
  'text/xml, application/json',
])
  add(`soap content type ${type}`, 'http', 'UNSUPPORTED_MEDIA_TYPE', post(PUBLIC, type, VALID11));
add('soap without a content type', 'http', 'UNSUPPORTED_MEDIA_TYPE', post(PUBLIC, undefined, VALID12));
add(
  'httppost text/xml form',
  'httppost',
  'UNSUPPORTED_MEDIA_TYPE',
  post(`${PUBLIC}/getBereich`, XML11, 'bereichID=1'),
);
add(
  'httppost multipart form',
  'httppost',
  'UNSUPPORTED_MEDIA_TYPE',
  post(
    `${PUBLIC}/getBereich`,
    'multipart/form-data; boundary=b',
    '--b\r\nContent-Disposition: form-data; name="bereichID"\r\n\r\n1\r\n--b--\r\n',
  ),
);
add(
  'httppost form without a content type',
  'httppost',
  'UNSUPPORTED_MEDIA_TYPE',
  post(`${PUBLIC}/getBereich`, undefined, 'bereichID=1'),
);

// -- content codings: no body is decoded, so a coded one would be read as plain (RFC 9110 §8.4).
for (const coding of ['gzip', 'deflate, identity', 'br', 'x-unknown'])
  add(
    `soap Content-Encoding ${coding}`,
    'http',
    'UNSUPPORTED_MEDIA_TYPE',
    post(PUBLIC, XML12, VALID12, [`Content-Encoding: ${coding}`]),
  );
add(
  'httppost Content-Encoding gzip',
  'httppost',
  'UNSUPPORTED_MEDIA_TYPE',
  post(`${PUBLIC}/getBereich`, FORM, 'bereichID=1', ['Content-Encoding: gzip']),
);
add(
  'httpget Content-Encoding gzip',
  'httpget',
  'UNSUPPORTED_MEDIA_TYPE',
  get(`${PUBLIC}/getBereich?bereichID=1`, ['Content-Encoding: gzip']),
);
add(
  'soap Content-Encoding identity is no coding',
  'soap12',
  'ok',
  post(PUBLIC, XML12, VALID12, ['Content-Encoding: Identity']),
);

// -- oversized bodies (declared; chunked ones are streamed below).
add(
  'soap12 declared 5 MB',
  'soap12',
  'BODY_TOO_LARGE',
  bytes(
    head(`POST ${PUBLIC} HTTP/1.1`, [
      'Host: localhost',
      `Content-Type: ${XML12}`,
      'Content-Length: 5000000',
      'Connection: close',
    ]),
    '<soap:Envelope',
  ),
);
add(
  'httppost declared 2^64 - 1 bytes',
  'httppost',
  'BODY_TOO_LARGE',
  bytes(
    head(`POST ${PUBLIC}/getBereich HTTP/1.1`, [
      'Host: localhost',
      `Content-Type: ${FORM}`,
      'Content-Length: 18446744073709551615',
      'Connection: close',
    ]),
    'bereichID=1',
  ),
);
add(
  'http declared length beyond 2^64',
  'http',
  'BAD_REQUEST',
  bytes(
    head(`POST ${PUBLIC}/getBereich HTTP/1.1`, [
      'Host: localhost',
      `Content-Type: ${FORM}`,
      'Content-Length: 99999999999999999999999',
      'Connection: close',
    ]),
    'bereichID=1',
  ),
);
