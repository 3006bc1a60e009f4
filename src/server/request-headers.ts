/** Checks on the request head that node's parser leaves to the application. */
import { ScoopError } from '../contract/errors.ts';
import type { RequestLike } from './exchange.ts';

type Head = Pick<RequestLike, 'headers' | 'rawHeaders' | 'httpVersionMajor' | 'httpVersionMinor'>;

function header(req: Head, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Headers that must appear at most once. Node keeps only the first of a repeated
 * `Authorization` or `Content-Type` and joins repeated `SOAPAction`s; any of these
 * repeated is ambiguous, so it is refused rather than guessed (RFC 9110 §5.3).
 */
const SINGLETONS: ReadonlyMap<string, number> = new Map(
  ['authorization', 'content-type', 'soapaction', 'host', 'if-none-match', 'x-request-id'].map((name, i) => [
    name,
    1 << i,
  ]),
);
/** Only names of these lengths can be one of SINGLETONS: the others are skipped without lower-casing them. */
const SINGLETON_LENGTHS = new Set([...SINGLETONS.keys()].map((name) => name.length));

/** RFC 9112 §3.2 / RFC 3986 §3.2.2: uri-host [ ":" port ], the host an IP-literal or a reg-name. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(?::[0-9]*)?$/;

function malformed(message: string): ScoopError {
  return new ScoopError('BAD_REQUEST', message);
}

/**
 * RFC 9112 §3: a request line is `method SP request-target SP HTTP-version`. node's parser
 * also takes a line without a version as HTTP/0.9 (and then reads header fields after it),
 * and `HTTP/2.0` in HTTP/1 framing; both would let a proxy and us disagree on the request.
 */
function checkVersion(req: Head): void {
  if (req.httpVersionMajor !== 1) throw malformed('Only HTTP/1.0 and HTTP/1.1 requests are accepted.');
}

/**
 * RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header
 * field or with an invalid one (node's own answer to a missing Host has no body, so the
 * server turns that check off and it is made here).
 */
function checkHost(req: Head): void {
  const host = header(req, 'host');
  const requiresHost = req.httpVersionMajor > 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
  if (host === undefined) {
    if (requiresHost) throw malformed('An HTTP/1.1 request needs a Host header.');
    return;
  }
  if (!HOST.test(host)) throw malformed('The Host header is not a valid host.');
}

/**
 * Framing node's parser accepts but we must not: RFC 9112 §6.1 says an HTTP/1.0 message
 * with Transfer-Encoding has faulty framing, and chunked is the only transfer coding we
 * implement — `gzip, chunked` would otherwise be read as if it were not compressed.
 */
function checkFraming(req: Head): void {
  const codings = header(req, 'transfer-encoding');
  if (codings === undefined) return;
  if (req.httpVersionMajor === 1 && req.httpVersionMinor === 0)
    throw malformed('An HTTP/1.0 request must not use Transfer-Encoding.');
  if (codings.trim().toLowerCase() !== 'chunked')
    throw malformed('The only transfer coding accepted is chunked.');
}

/** RFC 9110 §10.1.1: 100-continue is the only expectation defined; others cannot be met. */
function checkExpectation(req: Head): void {
  const expect = header(req, 'expect');
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue')
    throw malformed('The Expect header holds an expectation this server cannot meet.');
}

/**
 * No request body is ever decoded (RFC 9110 §8.4): one sent with a content coding other
 * than `identity` would be read as if it were not coded, so it is refused with 415
 * (§15.5.16); refuse.ts adds the Accept-Encoding that says what would be accepted.
 */
function checkContentEncoding(req: Head): void {
  const codings = header(req, 'content-encoding');
  if (codings === undefined) return;
  for (const coding of codings.split(',')) {
    const name = coding.trim().toLowerCase();
    if (name !== '' && name !== 'identity') {
      throw new ScoopError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Request bodies are accepted without a content coding, not ${coding.trim().slice(0, 40)}.`,
      );
    }
  }
}

export function checkRequestHeaders(req: Head, maxHeaders: number): void {
  const raw = req.rawHeaders;
  // node's maxHeadersCount is set one above the limit, so a request over it is visible here.
  if (raw.length / 2 > maxHeaders) {
    throw new ScoopError('HEADERS_TOO_LARGE', `The request has more than ${maxHeaders} header fields.`);
  }
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (!SINGLETON_LENGTHS.has(name.length)) continue;
    const bit = SINGLETONS.get(name.toLowerCase());
    if (bit === undefined) continue;
    if ((seen & bit) !== 0)
      throw new ScoopError('DUPLICATE_HEADER', `The ${name} header was sent more than once.`);
    seen |= bit;
  }
  checkVersion(req);
  checkHost(req);
  checkFraming(req);
  checkExpectation(req);
  checkContentEncoding(req);
}
