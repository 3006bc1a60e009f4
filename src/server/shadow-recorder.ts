/**
 * The response of a request `serve --shadow` sampled: it passes every call on to the
 * real response unchanged and keeps a copy of what was written — status, media type and
 * body (whole up to a bound, beyond it only its length and SHA-256; migrate/compare/
 * answer.ts) — to compare with the original's answer once the client has it.
 */
import { type Answer, BodyCollector } from '../migrate/compare/answer.ts';
import type { ResponseLike } from './exchange.ts';

export class RecordingResponse implements ResponseLike {
  private status = 0;
  private contentType = '';
  private readonly body: BodyCollector;

  constructor(
    readonly res: ResponseLike,
    keepBytes: number,
  ) {
    this.body = new BodyCollector(keepBytes);
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  get destroyed(): boolean {
    return this.res.destroyed;
  }

  get writableFinished(): boolean {
    return this.res.writableFinished;
  }

  get statusCode(): number {
    return this.res.statusCode;
  }

  setHeader(name: string, value: string): unknown {
    if (name.toLowerCase() === 'content-type') this.contentType = value;
    return this.res.setHeader(name, value);
  }

  writeHead(status: number, headers: Readonly<Record<string, string>> | string[]): unknown {
    this.status = status;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2)
        if (headers[i]!.toLowerCase() === 'content-type') this.contentType = headers[i + 1]!;
    } else {
      for (const [name, value] of Object.entries(headers))
        if (name.toLowerCase() === 'content-type') this.contentType = value;
    }
    return this.res.writeHead(status, headers);
  }

  write(chunk: Buffer, callback: () => void): boolean;
  write(chunk: string, encoding: 'latin1', callback: () => void): boolean;
  write(chunk: Buffer | string, second: 'latin1' | (() => void), third?: () => void): boolean {
    if (typeof chunk === 'string') {
      this.body.add(Buffer.from(chunk, 'latin1'));
      return this.res.write(chunk, 'latin1', third ?? (() => undefined));
    }
    // A copy: the piece may be a lent buffer, reused once written (support/buffer-pool.ts).
    this.body.add(Buffer.from(chunk));
    return this.res.write(chunk, typeof second === 'function' ? second : (third ?? (() => undefined)));
  }

  end(chunk?: Buffer): unknown {
    if (chunk) this.body.add(Buffer.from(chunk));
    return this.res.end(chunk);
  }

  destroy(): unknown {
    return this.res.destroy();
  }

  on(event: 'close', listener: () => void): unknown {
    return this.res.on(event, listener);
  }

  off(event: 'close', listener: () => void): unknown {
    return this.res.off(event, listener);
  }

  /** What the client was sent. */
  answer(): Answer {
    return this.body.answer(this.status, '', this.contentType);
  }
}
