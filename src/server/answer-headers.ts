/**
 * What every answer's head shares: the head of a successful answer, the conditional GET
 * (RFC 9110 §13.1.2), and the closing of the connection while the server drains.
 */
import { type Binding, type Call, single } from '../protocol/binding.ts';
import type { AppContext } from './app-context.ts';
import { noneMatch } from './etag.ts';
import type { Exchange } from './exchange.ts';

/** The original's header for answers of an invoked web method (reference/README.md §1). */
const CACHE_CONTROL = 'private, max-age=0';

/** The head of a successful answer, without the request id (answers are cached without it). */
export function successHeaders(binding: Binding, call: Call, httpMaxAge: number): Record<string, string> {
  return {
    'content-type': binding.contentType,
    // GET answers of public operations may be cached by proxies and CDNs, and revalidated by ETag.
    'cache-control': binding.isPublic(call) ? `public, max-age=${httpMaxAge}` : CACHE_CONTROL,
    'x-content-type-options': 'nosniff',
  };
}

/**
 * Called before any answer's head is written: while draining for shutdown, every answer
 * closes its connection — also one whose request arrived before the drain began.
 */
export function closeIfDraining(app: AppContext, exchange: Exchange): void {
  if (app.draining) exchange.res.setHeader('connection', 'close');
}

/** A GET whose If-None-Match names the answer's current tag gets 304 and no body; true when sent. */
export function answeredNotModified(exchange: Exchange, headers: Readonly<Record<string, string>>): boolean {
  if (!headers.etag || !noneMatch(single(exchange.headers['if-none-match']), headers.etag)) return false;
  const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
  exchange.answered = true;
  exchange.res.writeHead(304, { ...rest, 'x-request-id': exchange.observation.id });
  exchange.res.end();
  return true;
}
