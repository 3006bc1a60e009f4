/**
 * A small HTTP/1.1 client for the tools that call a service many thousand times: a pool
 * of keep-alive connections (plain TCP or TLS), one request at a time on each, the
 * request written in one piece, the answer's head parsed once and its body handed over
 * as it arrives. node:http does the same with far more machinery per request (streams,
 * events, an agent's bookkeeping): for a harvest that cost more CPU than the source spent
 * answering (docs/migration.md#performance), so the wire client uses this instead.
 *
 * What it understands of RFC 9112: a status line `HTTP/1.0` or `HTTP/1.1` (XSP, the
 * original's server, answers 1.0 and keeps the connection with `Connection: keep-alive`);
 * 1xx answers before the final one (skipped); a body framed by `Transfer-Encoding:
 * chunked` (§7.1, extensions and trailers read and dropped), by `Content-Length` (§6.3;
 * two different values are an error), or by the end of the connection; no body for 204
 * and 304. The connection is kept unless the answer says `Connection: close`, is HTTP/1.0
 * without `keep-alive`, or its body ran to the connection's end. A kept connection the
 * server closed while idle is noticed when the next request gets nothing back: that
 * request is sent once more on a new connection (the calls are reads, safe to repeat).
 */
import net from 'node:net';
import tls from 'node:tls';

export class Http1Error extends Error {
  override readonly name = 'Http1Error';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Http1Request {
  readonly method: string;
  /** Path and query, as sent in the request line. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

export interface Http1Answer {
  readonly status: number;
  /** Header names in lower case; a header sent more than once, its values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Http1Body;
}

/** A head larger than this is refused (node:http's default limit is 16 KiB). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Body bytes held for a reader that has not started reading, before the connection is paused. */
const MAX_UNREAD_BYTES = 256 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * An answer's body: read it once, to the end (`each`), or `discard` it. A body not read to
 * its end costs its connection, which is closed.
 */
export class Http1Body {
  /** Pieces that came before the reader started, or while it waited. */
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private each: ((chunk: Buffer) => void | Promise<void>) | undefined;
  private settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  /** The reader returned a promise that has not settled. */
  private busy = false;
  private ended = false;
  private settled = false;
  private failure: Error | undefined;
  /** True once the whole body arrived. */
  complete = false;

  constructor(private readonly connection: Connection) {}

  /**
   * Hands each piece to `each` as it arrives, in order; while a promise `each` returned is
   * pending, the connection is paused. Resolves once the body ended and every piece was
   * handed over; rejects when the body is cut off or `each` fails.
   */
  read(each: (chunk: Buffer) => void | Promise<void>): Promise<void> {
    if (this.each) throw new Error('a body is read once');
    this.each = each;
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      if (!this.complete) this.connection.resume();
      this.drain();
    });
  }

  /** Drops the body; its connection is closed unless the body had arrived whole. */
  discard(): void {
    this.each ??= () => undefined;
    if (!this.complete) this.connection.destroy(new Http1Error('ECONNABORTED', 'the answer was not read'));
  }

  /** From the connection: the next piece of this body. */
  push(piece: Buffer): void {
    if (this.failure) return;
    this.queue.push(piece);
    this.queuedBytes += piece.length;
    if (this.each) this.drain();
    else if (this.queuedBytes > MAX_UNREAD_BYTES) this.connection.pause();
  }

  /** From the connection: the body is whole. */
  end(): void {
    this.complete = true;
    this.ended = true;
    if (this.each) this.drain();
  }

  /**
   * From the connection, or a reader that failed: the body will not be read whole. A body
   * that arrived whole has given its connection back, which then is no longer its to close.
   */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.queue = [];
    this.rejectOnce(error);
    if (!this.complete) this.connection.destroy(error);
  }

  private rejectOnce(error: Error): void {
    if (this.settle && !this.settled) {
      this.settled = true;
      this.settle.reject(error);
    }
  }

  private drain(): void {
    if (this.failure) {
      this.rejectOnce(this.failure);
      return;
    }
    while (!this.busy && this.queue.length > 0) {
      const piece = this.queue.shift()!;
      this.queuedBytes -= piece.length;
      let waiting: void | Promise<void>;
      try {
        waiting = this.each!(piece);
      } catch (error) {
        this.fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (waiting) {
        this.busy = true;
        if (!this.complete) this.connection.pause();
        waiting.then(
          () => {
            this.busy = false;
            if (!this.complete) this.connection.resume();
            this.drain();
          },
          (error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))),
        );
        return;
      }
    }
    if (!this.busy && this.ended && this.queue.length === 0 && this.settle && !this.settled) {
      this.settled = true;
      this.settle.resolve();
    }
  }
}

type Framing =
  | { readonly kind: 'length'; left: number }
  | { readonly kind: 'chunked'; state: 'size' | 'data' | 'data-end' | 'trailer'; left: number }
  | { readonly kind: 'close' }
  | { readonly kind: 'none' };

interface Exchange {
  readonly request: Http1Request;
  readonly resolve: (answer: Http1Answer) => void;
  readonly reject: (error: Error) => void;
  /** A second try is allowed: the first went out on a reused connection. */
  retried: boolean;
}

/** One connection, with at most one exchange at a time. */
class Connection {
  readonly socket: net.Socket;
  private buffer: Buffer = EMPTY;
  private exchange: Exchange | undefined;
  private body: Http1Body | undefined;
  private framing: Framing | undefined;
  private keep = false;
  /** Bytes of the current answer seen: none means the server may have closed an idle connection. */
  private answered = false;
  reused = false;
  closed = false;

  constructor(
    private readonly pool: Http1Pool,
    socket: net.Socket,
    idleTimeoutMs: number,
  ) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setTimeout(idleTimeoutMs, () =>
      this.destroy(new Http1Error('ETIMEDOUT', `no answer within ${idleTimeoutMs / 1000} s`)),
    );
    socket.on('data', (chunk: Buffer) => this.data(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      this.destroy(new Http1Error(error.code ?? 'ERROR', error.message)),
    );
    socket.on('close', () => this.closedByPeer());
    socket.on('end', () => this.endOfInput());
  }

  send(exchange: Exchange): void {
    this.exchange = exchange;
    this.answered = false;
    // The reader of the last answer may have paused the socket while it finished its last piece.
    this.socket.resume();
    const { request } = exchange;
    let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
    const headBytes = Buffer.from(`${head}\r\n`, 'latin1');
    this.socket.write(request.body ? Buffer.concat([headBytes, request.body]) : headBytes);
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private data(chunk: Buffer): void {
    this.answered = true;
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    try {
      this.parse();
    } catch (error) {
      this.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private parse(): void {
    for (;;) {
      if (!this.body) {
        if (!this.exchange) {
          if (this.buffer.length > 0)
            throw new Http1Error('EPROTO', 'bytes from the server with no request out');
          return;
        }
        const end = this.buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.buffer.length > MAX_HEAD_BYTES)
            throw new Http1Error('EPROTO', 'an answer head over 64 KiB');
          return;
        }
        const head = this.buffer.toString('latin1', 0, end);
        this.buffer = this.buffer.subarray(end + 4);
        if (!this.head(head)) continue;
      }
      if (!this.bodyBytes()) return;
    }
  }

  /** Reads a head; false for a 1xx (the final answer is still to come). */
  private head(text: string): boolean {
    const lines = text.split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]!);
    if (!status)
      throw new Http1Error('EPROTO', `not an HTTP/1 answer: ${JSON.stringify(lines[0]!.slice(0, 60))}`);
    const code = Number(status[2]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Http1Error('EPROTO', 'a malformed header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
    }
    if (code >= 100 && code < 200) return false;
    const exchange = this.exchange!;
    const connection = (headers.connection ?? '').toLowerCase();
    const http10 = status[1] === '0';
    this.keep = http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection);
    this.framing = this.framingOf(code, headers, exchange.request.method);
    if (this.framing.kind === 'close') this.keep = false;
    this.body = new Http1Body(this);
    exchange.resolve({ status: code, headers, body: this.body });
    return true;
  }

  private framingOf(code: number, headers: Record<string, string>, method: string): Framing {
    if (method === 'HEAD' || code === 204 || code === 304) return { kind: 'none' };
    const encoding = headers['transfer-encoding'];
    if (encoding !== undefined) {
      if (!/(^|,)\s*chunked\s*$/i.test(encoding))
        throw new Http1Error('EPROTO', `a transfer coding other than chunked: ${encoding}`);
      return { kind: 'chunked', state: 'size', left: 0 };
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      const values = new Set(length.split(',').map((v) => v.trim()));
      const [value] = values;
      if (values.size !== 1 || !/^\d+$/.test(value!))
        throw new Http1Error('EPROTO', `a bad Content-Length: ${length}`);
      return { kind: 'length', left: Number(value) };
    }
    return { kind: 'close' };
  }

  /** Passes body bytes on; true when the body ended and the next answer may follow. */
  private bodyBytes(): boolean {
    const framing = this.framing!;
    const body = this.body!;
    switch (framing.kind) {
      case 'none':
        this.finish();
        return true;
      case 'close':
        if (this.buffer.length > 0) body.push(this.take(this.buffer.length));
        return false;
      case 'length': {
        const n = Math.min(framing.left, this.buffer.length);
        if (n > 0) body.push(this.take(n));
        framing.left -= n;
        if (framing.left > 0) return false;
        this.finish();
        return true;
      }
      case 'chunked':
        return this.chunked(framing, body);
    }
  }

  private chunked(framing: Extract<Framing, { kind: 'chunked' }>, body: Http1Body): boolean {
    for (;;) {
      switch (framing.state) {
        case 'size': {
          const eol = this.buffer.indexOf('\r\n');
          if (eol < 0) {
            if (this.buffer.length > 4096) throw new Http1Error('EPROTO', 'a chunk size line over 4 KiB');
            return false;
          }
          const line = this.take(eol + 2).toString('latin1', 0, eol);
          const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
          if (!size) throw new Http1Error('EPROTO', 'a malformed chunk size');
          framing.left = Number.parseInt(size[1]!, 16);
          framing.state = framing.left === 0 ? 'trailer' : 'data';
          break;
        }
        case 'data': {
          const n = Math.min(framing.left, this.buffer.length);
          if (n === 0) return false;
          body.push(this.take(n));
          framing.left -= n;
          if (framing.left === 0) framing.state = 'data-end';
          break;
        }
        case 'data-end':
          if (this.buffer.length < 2) return false;
          if (this.buffer[0] !== 0x0d || this.buffer[1] !== 0x0a)
            throw new Http1Error('EPROTO', 'a chunk not ended by CRLF');
          this.take(2);
          framing.state = 'size';
          break;
        case 'trailer': {
          const eol = this.buffer.indexOf('\r\n');
          if (eol < 0) {
            if (this.buffer.length > MAX_HEAD_BYTES) throw new Http1Error('EPROTO', 'trailers over 64 KiB');
            return false;
          }
          this.take(eol + 2);
          if (eol === 0) {
            this.finish();
            return true;
          }
        }
      }
    }
  }

  private take(n: number): Buffer {
    const piece = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return piece;
  }

  /** The answer is whole: the connection goes back to the pool, or is closed. */
  private finish(): void {
    const body = this.body!;
    this.body = undefined;
    this.exchange = undefined;
    this.framing = undefined;
    body.end();
    if (this.keep) {
      this.reused = true;
      this.pool.release(this);
    } else this.destroy(undefined);
  }

  private endOfInput(): void {
    if (this.framing?.kind === 'close' && this.body) {
      const body = this.body;
      this.body = undefined;
      this.exchange = undefined;
      body.end();
    }
  }

  private closedByPeer(): void {
    this.destroy(new Http1Error('ECONNRESET', 'the connection was closed'));
  }

  /** Closes the connection; what is in flight on it fails with `error`. */
  destroy(error: Error | undefined): void {
    if (!this.closed) {
      this.closed = true;
      this.socket.destroy();
      this.pool.forget(this);
    }
    const exchange = this.exchange;
    const body = this.body;
    this.exchange = undefined;
    this.body = undefined;
    const failure = error ?? new Http1Error('ECONNRESET', 'the connection was closed');
    if (body) body.fail(failure);
    else if (exchange) {
      // Nothing came back on a connection that had served before: it died while idle.
      if (this.reused && !this.answered && !exchange.retried) {
        exchange.retried = true;
        this.pool.enqueue(exchange, true);
      } else exchange.reject(failure);
    }
  }
}

export interface Http1PoolOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly maxSockets: number;
  readonly idleTimeoutMs: number;
}

/** Up to `maxSockets` connections to one server; requests wait for a free one in order. */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: Exchange[] = [];

  constructor(private readonly options: Http1PoolOptions) {}

  request(request: Http1Request): Promise<Http1Answer> {
    return new Promise((resolve, reject) =>
      this.enqueue({ request, resolve, reject, retried: false }, false),
    );
  }

  enqueue(exchange: Exchange, fresh: boolean): void {
    const connection = fresh ? undefined : this.idle.pop();
    if (connection) {
      connection.send(exchange);
      return;
    }
    if (this.all.size < this.options.maxSockets || fresh) {
      this.connect().send(exchange);
      return;
    }
    this.waiting.push(exchange);
  }

  private connect(): Connection {
    const { host, port, idleTimeoutMs } = this.options;
    const socket = this.options.tls
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect(port, host);
    const connection = new Connection(this, socket, idleTimeoutMs);
    this.all.add(connection);
    return connection;
  }

  release(connection: Connection): void {
    const next = this.waiting.shift();
    if (next) connection.send(next);
    else this.idle.push(connection);
  }

  forget(connection: Connection): void {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    const next = this.waiting.shift();
    if (next) this.enqueue(next, false);
  }

  /** Closes every connection; what is in flight or waiting fails. */
  destroy(error: Error): void {
    for (const exchange of this.waiting.splice(0)) exchange.reject(error);
    for (const connection of [...this.all]) connection.destroy(error);
  }
}
