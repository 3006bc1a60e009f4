/**
 * Sends a ClientRequest (protocol/client-request.ts) to a running service — scoop or the
 * original — over HTTP or HTTPS with keep-alive connections, and hands back the status,
 * the headers and the body as a stream, so an answer of any size can be read piece by
 * piece. No retries and no pacing here: the tools that use it decide those
 * (migrate/harvest/pacer.ts).
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ClientRequest } from '../protocol/client-request.ts';

/** The request never got an answer: refused, reset, timed out, a name that does not resolve. */
export class WireConnectionError extends Error {
  override readonly name = 'WireConnectionError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class BaseUrlError extends Error {
  override readonly name = 'BaseUrlError';
}

export interface WireAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as it arrives; read it to the end or destroy it, so the connection is freed. */
  readonly body: IncomingMessage;
}

export interface WireClientOptions {
  /** Connections kept open to the service (default 8). */
  readonly maxSockets?: number;
  /** A connection silent this long (waiting for the head or inside the body) fails the request (default 60 s). */
  readonly idleTimeoutMs?: number;
}

/** An absolute http: or https: URL without query or fragment; the path, if any, prefixes every request's. */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BaseUrlError(`${JSON.stringify(text)} is not an absolute URL (e.g. https://cms.example.org)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BaseUrlError(`${JSON.stringify(text)} is not an http: or https: URL`);
  if (url.search !== '' || url.hash !== '')
    throw new BaseUrlError(`${JSON.stringify(text)} has a query or fragment; give the service's base URL`);
  return url;
}

/** The URL as it may be shown: no user name or password. */
export function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href.replace(/\/$/, '');
}

export class WireClient {
  private readonly base: URL;
  private readonly prefix: string;
  private readonly agent: http.Agent;
  private readonly idleTimeoutMs: number;

  constructor(base: URL, options: WireClientOptions = {}) {
    this.base = base;
    this.prefix = base.pathname.replace(/\/+$/, '');
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 8 };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  }

  /** The full URL of a request's path (for messages). */
  urlOf(path: string): string {
    return `${displayUrl(this.base)}${path}`;
  }

  send(request: ClientRequest, signal?: AbortSignal): Promise<WireAnswer> {
    const body = request.method === 'POST' ? Buffer.from(request.body, 'utf8') : undefined;
    const headers: Record<string, string> = { ...request.headers };
    if (body) headers['content-length'] = String(body.length);
    const send = this.base.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port,
          method: request.method,
          path: `${this.prefix}${request.path}`,
          headers,
          agent: this.agent,
          ...(this.base.username
            ? { auth: `${decodeURIComponent(this.base.username)}:${decodeURIComponent(this.base.password)}` }
            : {}),
          ...(signal ? { signal } : {}),
        },
        (response) => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: response });
        },
      );
      req.setTimeout(this.idleTimeoutMs, () => {
        req.destroy(new WireConnectionError('ETIMEDOUT', `no answer within ${this.idleTimeoutMs / 1000} s`));
      });
      req.on('error', (error: NodeJS.ErrnoException) => reject(connectionError(error)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Node's errors as WireConnectionError, with what an operator can act on. */
export function connectionError(error: NodeJS.ErrnoException): Error {
  if (error instanceof WireConnectionError || error.name === 'AbortError') return error;
  const code = error.code ?? 'ERROR';
  const what: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused',
    ECONNRESET: 'the connection was reset',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name could not be resolved (yet)',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
    EPIPE: 'the connection was closed while sending',
    ETIMEDOUT: 'the connection timed out',
  };
  return new WireConnectionError(code, what[code] ?? error.message);
}

/**
 * Hands each piece of the body to `each` as it arrives, pausing the stream while a piece's
 * promise is pending (so a slow consumer holds the sender back); rejects with
 * WireConnectionError when the body is cut off, or with what `each` threw. Events rather
 * than async iteration: an answer of a few kilobytes costs no iterator machinery.
 */
export function eachChunk(
  body: IncomingMessage,
  each: (chunk: Buffer) => void | Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    // The last piece's promise: 'end' can come while it is pending, paused or not.
    let last: Promise<void> = Promise.resolve();
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      body.destroy();
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      if (failed) return;
      let pending: void | Promise<void>;
      try {
        pending = each(chunk);
      } catch (error) {
        fail(error);
        return;
      }
      if (pending) {
        body.pause();
        last = pending.then(() => {
          body.resume();
        }, fail);
      }
    });
    body.once('end', () => {
      void last.then(() => {
        if (!failed) resolve();
      });
    });
    body.once('error', (error: NodeJS.ErrnoException) => fail(connectionError(error)));
    body.once('close', () => {
      if (!body.complete) fail(new WireConnectionError('ECONNRESET', 'the answer was cut off'));
    });
  });
}

/** The body as text, at most `limit` bytes of it (the rest is read and dropped, so the connection is kept). */
export async function readText(answer: WireAnswer, limit = 1024 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.body) {
      const piece: Buffer = chunk;
      if (size < limit) parts.push(piece.subarray(0, limit - size));
      size += piece.length;
    }
  } catch (error) {
    throw connectionError(error as NodeJS.ErrnoException);
  }
  return Buffer.concat(parts).toString('utf8');
}
