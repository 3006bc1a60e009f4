/**
 * Requests and responses without a socket, for driving the kernel (src/server/app.ts) in
 * unit tests, as hono's `app.request()` does: a fake request delivers its body once the
 * kernel listens for it, and a fake response collects what is written.
 */
import { EventEmitter } from 'node:events';
import type { RequestLike, ResponseLike } from '../../src/server/exchange.ts';

export interface FakeInit {
  readonly method?: string;
  readonly url: string;
  /** Header fields in order; a name may repeat. `host` is added unless given. */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Buffer;
}

export interface FakeAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly text: string;
}

class FakeRequest extends EventEmitter {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string> = {};
  readonly rawHeaders: string[] = [];
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly socket = { remoteAddress: '192.0.2.7', localAddress: '127.0.0.1', localPort: 8080 };
  private delivered = false;

  constructor(
    init: FakeInit,
    private readonly body: Buffer,
  ) {
    super();
    this.method = init.method ?? 'GET';
    this.url = init.url;
    const fields = init.headers ?? [];
    const all = fields.some(([name]) => name.toLowerCase() === 'host')
      ? fields
      : [['Host', 'localhost'] as const, ...fields];
    for (const [name, value] of all) {
      this.rawHeaders.push(name, value);
      // As node: the first of a repeated singleton is kept.
      this.headers[name.toLowerCase()] ??= value;
    }
    if (body.length > 0 && this.headers['content-length'] === undefined)
      this.headers['content-length'] = String(body.length);
  }

  /** The body goes out once 'end' is listened for (collectBody listens for data, end, error). */
  override on(event: string | symbol, listener: (...args: never[]) => void): this {
    super.on(event, listener as (...args: unknown[]) => void);
    if (event === 'end' && !this.delivered) {
      this.delivered = true;
      setImmediate(() => {
        if (this.body.length > 0) this.emit('data', this.body);
        this.emit('end');
      });
    }
    return this;
  }

  pause(): this {
    return this;
  }
}

class FakeResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  statusCode = 200;
  readonly head: Record<string, string> = {};
  readonly chunks: Buffer[] = [];

  setHeader(name: string, value: string): this {
    this.head[name.toLowerCase()] = value;
    return this;
  }

  writeHead(status: number, headers: Readonly<Record<string, string>> | string[]): this {
    this.statusCode = status;
    this.headersSent = true;
    const pairs = Array.isArray(headers)
      ? headers.flatMap((_, i) => (i % 2 === 0 ? [[headers[i]!, headers[i + 1]!] as const] : []))
      : Object.entries(headers);
    for (const [name, value] of pairs) this.head[name.toLowerCase()] = value;
    return this;
  }

  write(chunk: Buffer | string, encodingOrCallback: unknown, callback?: () => void): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (typeof done === 'function') queueMicrotask(done as () => void);
    return true;
  }

  end(chunk?: Buffer): this {
    if (chunk) this.chunks.push(chunk);
    this.writableFinished = true;
    this.emit('close');
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
}

export interface Fake {
  readonly req: RequestLike;
  readonly res: ResponseLike;
  /** True once the answer has been ended (or the response destroyed). */
  readonly closed: () => boolean;
  /** The answer, once the response has closed. */
  readonly answer: Promise<FakeAnswer>;
}

export function fake(init: FakeInit): Fake {
  const body =
    typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : (init.body ?? Buffer.alloc(0));
  const req = new FakeRequest(init, body);
  const res = new FakeResponse();
  let closed = false;
  const answer = new Promise<FakeAnswer>((resolve) => {
    res.once('close', () => {
      closed = true;
      const bytes = Buffer.concat(res.chunks);
      resolve({ status: res.statusCode, headers: res.head, body: bytes, text: bytes.toString('utf8') });
    });
  });
  return { req, res, closed: () => closed, answer };
}

/** Sends one request through `handle` and resolves with its answer. */
export function request(
  handle: (req: RequestLike, res: ResponseLike) => void,
  init: FakeInit,
): Promise<FakeAnswer> {
  const { req, res, answer } = fake(init);
  handle(req, res);
  return answer;
}
