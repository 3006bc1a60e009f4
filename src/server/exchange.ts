/**
 * One request's passage through the pipeline: what the request is (a request-like value
 * node's IncomingMessage satisfies, and so does a test's fake), what each stage has found
 * out about it, and where its answer goes (a response-like value).
 */

import type { Observation } from '../observe/request-log.ts';
import type { Binding, Call, HeaderValues, Target, WireRequest } from '../protocol/binding.ts';
import type { MediaType } from '../protocol/content-type.ts';
import { type BufferPool, Loans } from '../support/buffer-pool.ts';
import type { BodyPart } from '../xml/writer.ts';
import type { Admission } from './rate-limit.ts';
import type { RequestKey } from './response-cache.ts';

/** The parts of node's IncomingMessage the kernel uses. */
export interface RequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: HeaderValues;
  readonly rawHeaders: readonly string[];
  readonly httpVersionMajor: number;
  readonly httpVersionMinor: number;
  readonly socket: {
    readonly remoteAddress?: string | undefined;
    readonly localAddress?: string | undefined;
    readonly localPort?: number | undefined;
  };
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
}

/** The parts of node's ServerResponse the kernel uses. */
export interface ResponseLike {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
  readonly statusCode: number;
  setHeader(name: string, value: string): unknown;
  writeHead(status: number, headers: Readonly<Record<string, string>> | string[]): unknown;
  write(chunk: Buffer, callback: () => void): boolean;
  write(chunk: string, encoding: 'latin1', callback: () => void): boolean;
  end(chunk?: Buffer): unknown;
  destroy(): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** A successful result, rendered by its binding, before it is sent. */
export interface Answer {
  readonly parts: BodyPart[];
  /** Header fields of the answer's own (binding.ts RenderedAnswer). */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** The answer is stale from this instant on (ms); infinite unless an article's window ends. */
  readonly expiresAt: number;
  /** Its entity tag when already known (an answer from the answer pack); else send makes it. */
  readonly tag?: string | undefined;
}

const NO_TARGET: Target = { kind: 'none' };

export class Exchange implements WireRequest {
  readonly method: string;
  readonly headers: HeaderValues;
  /** route: where the path points. */
  target: Target = NO_TARGET;
  /** route: a POST's Content-Type (binding.ts). */
  mediaType: MediaType | undefined = undefined;
  /** route: the binding that took the request; it renders refusals until a call names its own. */
  binding: Binding | undefined = undefined;
  /** admit: the request's standing with the rate limit. */
  admission: Admission | undefined = undefined;
  /** read body: when the binding reads it before decoding. */
  body: Buffer | undefined = undefined;
  /** cached answer: the answer cache's key and the content version looked up (0 until then). */
  key: RequestKey | undefined = undefined;
  version = 0;
  /** decode (or a cached answer): what is being called. */
  call: Call | undefined = undefined;
  /** invoke: the rendered result. */
  answer: Answer | undefined = undefined;
  /** Set by the stage that writes the answer: the stages after it do not run. */
  answered = false;
  private aborter: AbortController | undefined = undefined;
  private loans: Loans | undefined = undefined;

  constructor(
    readonly req: RequestLike,
    readonly res: ResponseLike,
    readonly observation: Observation,
    readonly path: string,
    readonly query: string,
  ) {
    this.method = req.method ?? 'GET';
    this.headers = req.headers;
  }

  /**
   * Allocates a buffer the answer may hold until it is sent: lent by `pool`, and given back
   * when the response has been written in full (its 'close' after 'finish').
   */
  borrow(pool: BufferPool, length: number): Buffer {
    if (!this.loans) {
      const loans = new Loans(pool);
      this.loans = loans;
      const { res } = this;
      res.on('close', () => {
        if (res.writableFinished) loans.settle();
        else loans.forfeit();
      });
    }
    return this.loans.borrow(length);
  }

  /**
   * Fires when the response closes before it is fully written (the client went away).
   * Made on first use, so an answer that never asks (a cached one) pays nothing for it.
   */
  get signal(): AbortSignal {
    if (!this.aborter) {
      const aborter = new AbortController();
      this.aborter = aborter;
      const { res } = this;
      if (res.destroyed && !res.writableFinished) aborter.abort();
      else
        res.on('close', () => {
          if (!res.writableFinished) aborter.abort();
        });
    }
    return this.aborter.signal;
  }
}
