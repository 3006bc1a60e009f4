/** Reads a request body under a size cap, without holding more than the cap. */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ScoopError } from '../contract/errors.ts';

/** How long, and for how many more bytes, a refused upload is drained before the connection is cut. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;

/**
 * RFC 9112 §9.6: closing a connection while the client is still sending makes the TCP
 * stack answer with a reset, which can destroy the 413 before the client has read it.
 * So the connection of a refused upload is closed in stages: node ends it with
 * `destroySoon()` once the answer is written (its `Connection: close`); here that becomes
 * a half-close, and the full close follows when the client closes its side, LINGER_MS
 * pass or LINGER_BYTES more arrive (node's parser may have paused reading, so usually the
 * timer) — never after the rest of an endless body.
 */
function closeInStages(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    let drained = 0;
    const cut = () => this.destroy();
    const timer = setTimeout(cut, LINGER_MS);
    this.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    this.once('end', cut);
    this.once('close', () => clearTimeout(timer));
  };
}

function tooLarge(req: IncomingMessage, maxBytes: number): ScoopError {
  closeInStages(req.socket);
  return new ScoopError('BODY_TOO_LARGE', `The request body exceeds the limit of ${maxBytes} bytes.`);
}

/**
 * Reads a body under a size cap and calls `done` once with it or with a refusal. Listens
 * for 'data' and 'end' rather than iterating the stream: a small body arrives in one
 * chunk, and an async iterator (or even a promise) costs more per request than reading
 * it does. A client that goes away mid-body makes node destroy the request with an error
 * ('aborted'), so 'error' covers that as well as a refused chunk framing.
 */
export function collectBody(
  req: IncomingMessage,
  maxBytes: number,
  done: (error: ScoopError | undefined, body: Buffer | undefined) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    done(tooLarge(req, maxBytes), undefined);
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
      done(tooLarge(req, maxBytes), undefined);
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

/** collectBody as a promise. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    collectBody(req, maxBytes, (error, body) => (error ? reject(error) : resolve(body!)));
  });
}
