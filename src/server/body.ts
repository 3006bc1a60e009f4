/** Reads a request body under a size cap and the budget of bodies in flight, without holding more than either. */
import { ScoopError } from '../contract/errors.ts';
import type { BodyClaim } from './body-budget.ts';
import type { RequestLike } from './exchange.ts';

function tooLarge(
  req: RequestLike,
  maxBytes: number,
  afterRefusal: ((req: RequestLike) => void) | undefined,
): ScoopError {
  afterRefusal?.(req);
  return new ScoopError('BODY_TOO_LARGE', `The request body exceeds the limit of ${maxBytes} bytes.`);
}

function busy(req: RequestLike, afterRefusal: ((req: RequestLike) => void) | undefined): ScoopError {
  afterRefusal?.(req);
  return new ScoopError('BUSY', 'The server is reading too many request bodies at once; retry shortly.', {
    retryAfterSeconds: 1,
  });
}

/**
 * Reads a body under a size cap and calls `done` once with it or with a refusal; the body
 * counts against `claim` (its declared length at once, a chunked body's chunks as they
 * arrive), and one the budget cannot hold is refused BUSY unread. A refused
 * upload's connection is then closed as the transport's `afterRefusal` does it. Listens
 * for 'data' and 'end' rather than iterating the stream: a small body arrives in one
 * chunk, and an async iterator (or even a promise) costs more per request than reading
 * it does. A client that goes away mid-body makes node destroy the request with an error
 * ('aborted'), so 'error' covers that as well as a refused chunk framing.
 */
export function collectBody(
  req: RequestLike,
  maxBytes: number,
  claim: BodyClaim,
  done: (error: ScoopError | undefined, body: Buffer | undefined) => void,
  afterRefusal?: (req: RequestLike) => void,
): void {
  // node's parser refuses a Content-Length that is not a number; one that still is not
  // (a fake's) is left to the chunks, so the budget never counts a NaN.
  const header = Number(req.headers['content-length'] ?? Number.NaN);
  const declared = Number.isFinite(header) ? header : undefined;
  if (declared !== undefined && declared > maxBytes) {
    done(tooLarge(req, maxBytes, afterRefusal), undefined);
    return;
  }
  if (declared !== undefined && !claim.take(declared)) {
    done(busy(req, afterRefusal), undefined);
    return;
  }
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let total = 0;
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    total += chunk.length;
    // A chunked body has no declared length (RFC 9112 §7.1): it is cut off at the cap.
    if (total > maxBytes) {
      settled = true;
      req.pause();
      done(tooLarge(req, maxBytes, afterRefusal), undefined);
      return;
    }
    if (declared === undefined && !claim.take(chunk.length)) {
      settled = true;
      req.pause();
      done(busy(req, afterRefusal), undefined);
      return;
    }
    if (first === undefined) first = chunk;
    else if (chunks === undefined) chunks = [first, chunk];
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    done(undefined, chunks ? Buffer.concat(chunks, total) : (first ?? Buffer.alloc(0)));
  });
  // The body ended early (the client went away, or node's parser refused its chunk
  // framing, RFC 9112 §7.1): the client's failure, not ours, so no INTERNAL and no stack in the log.
  req.on('error', () => {
    if (settled) return;
    settled = true;
    done(new ScoopError('BAD_REQUEST', 'The request body was cut off or is malformed.'), undefined);
  });
}
