/** Checks on the request head that node's parser leaves to the application. */
import type { IncomingMessage } from 'node:http';
import { ScoopError } from '../contract/errors.ts';

/**
 * Headers that must appear at most once. Node keeps only the first of a repeated
 * `Authorization` or `Content-Type` and joins repeated `SOAPAction`s; any of these
 * repeated is ambiguous, so it is refused rather than guessed (RFC 9110 §5.3).
 */
const SINGLETONS = new Set([
  'authorization',
  'content-type',
  'soapaction',
  'host',
  'if-none-match',
  'x-request-id',
]);

export function checkRequestHeaders(req: IncomingMessage, maxHeaders: number): void {
  const raw = req.rawHeaders;
  // node's maxHeadersCount is set one above the limit, so a request over it is visible here.
  if (raw.length / 2 > maxHeaders) {
    throw new ScoopError('HEADERS_TOO_LARGE', `The request has more than ${maxHeaders} header fields.`);
  }
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!SINGLETONS.has(name)) continue;
    if (seen.has(name))
      throw new ScoopError('DUPLICATE_HEADER', `The ${raw[i]} header was sent more than once.`);
    seen.add(name);
  }
}
