/**
 * Sends a ClientRequest (protocol/client-request.ts) to a running service — scoop or the
 * original — over HTTP or HTTPS with keep-alive connections (http1.ts), and hands back the
 * status, the headers and the body as it arrives, so an answer of any size can be read
 * piece by piece. No retries and no pacing here: the tools that use it decide those
 * (migrate/harvest/pacer.ts).
 */
import type { ClientRequest } from '../protocol/client-request.ts';
import { type Http1Body, Http1Error, Http1Pool } from './http1.ts';

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
  /** Names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as it arrives; read it to the end (eachChunk, readText) or discard it. */
  readonly body: Http1Body;
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
  private pool: Http1Pool;
  private readonly fixedHeaders: Readonly<Record<string, string>>;

  constructor(
    base: URL,
    private readonly options: WireClientOptions = {},
  ) {
    this.base = base;
    this.prefix = base.pathname.replace(/\/+$/, '');
    const headers: Record<string, string> = { host: base.host };
    if (base.username) {
      const credentials = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.fixedHeaders = headers;
    this.pool = this.newPool();
  }

  private newPool(): Http1Pool {
    const https = this.base.protocol === 'https:';
    return new Http1Pool({
      host: this.base.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.base.port || (https ? 443 : 80)),
      tls: https,
      maxSockets: this.options.maxSockets ?? 8,
      idleTimeoutMs: this.options.idleTimeoutMs ?? 60_000,
    });
  }

  /** The full URL of a request's path (for messages). */
  urlOf(path: string): string {
    return `${displayUrl(this.base)}${path}`;
  }

  async send(request: ClientRequest): Promise<WireAnswer> {
    const body = request.method === 'POST' ? Buffer.from(request.body, 'utf8') : undefined;
    const headers: Record<string, string> = { ...this.fixedHeaders, ...request.headers };
    if (body) headers['content-length'] = String(body.length);
    try {
      return await this.pool.request({
        method: request.method,
        path: `${this.prefix}${request.path}`,
        headers,
        body,
      });
    } catch (error) {
      throw connectionError(error as NodeJS.ErrnoException);
    }
  }

  /**
   * Ends every request in flight and waiting (each fails as an aborted connection);
   * requests sent later get new connections.
   */
  abortAll(): void {
    const old = this.pool;
    this.pool = this.newPool();
    old.destroy(new WireConnectionError('ECONNABORTED', 'stopped'));
  }

  close(): void {
    this.pool.destroy(new WireConnectionError('ECONNABORTED', 'the client was closed'));
  }
}

/** Node's errors as WireConnectionError, with what an operator can act on. */
export function connectionError(error: NodeJS.ErrnoException): Error {
  if (error instanceof WireConnectionError) return error;
  const code = (error instanceof Http1Error ? error.code : error.code) ?? 'ERROR';
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
 * Hands each piece of the body to `each` as it arrives, waiting for a promise it returns
 * (so a slow consumer holds the sender back); rejects with WireConnectionError when the
 * body is cut off, or with what `each` threw.
 */
export async function eachChunk(
  body: Http1Body,
  each: (chunk: Buffer) => void | Promise<void>,
): Promise<void> {
  try {
    await body.read(each);
  } catch (error) {
    // The connection's errors are Http1Error; anything else is what `each` threw.
    if (error instanceof Http1Error) throw connectionError(error);
    throw error;
  }
}

/** The body as text, at most `limit` bytes of it (the rest is read and dropped, so the connection is kept). */
export async function readText(answer: WireAnswer, limit = 1024 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  await eachChunk(answer.body, (piece) => {
    if (size < limit) parts.push(piece.subarray(0, limit - size));
    size += piece.length;
  });
  return Buffer.concat(parts).toString('utf8');
}
