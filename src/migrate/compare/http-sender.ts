/**
 * Sends requests to one service (a base URL, perhaps with a path of its own) over
 * keep-alive connections, at most `maxSockets` at once, each exchange bounded in time;
 * answers are collected by answer.ts (kept up to a bound, hashed beyond). Redirects are
 * not followed and nothing is decompressed: what is compared is what a client gets.
 */
import http from 'node:http';
import https from 'node:https';
import { BodyCollector, type Received } from './answer.ts';
import type { SentRequest } from './replay-request.ts';

export interface SenderOptions {
  /** From sending the request to the last byte of the answer. */
  readonly timeoutMs: number;
  /** Body bytes kept whole; a longer answer is kept as its length and SHA-256. */
  readonly keepBytes: number;
  readonly maxSockets: number;
}

/** The base URL, checked: http or https, with a host, no query, fragment or credentials. */
export function parseBaseUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (
    url.hostname === '' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  )
    return undefined;
  return url;
}

/** A transport error as one line an operator can act on. */
export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${code})`;
    case 'ECONNRESET':
      return 'connection reset (ECONNRESET)';
    default:
      return code && !message.includes(code) ? `${message} (${code})` : message;
  }
}

export class HttpSender {
  private readonly agent: http.Agent;
  private readonly prefix: string;

  constructor(
    readonly base: URL,
    private readonly options: SenderOptions,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.prefix = base.pathname.replace(/\/+$/, '');
  }

  send(request: SentRequest): Promise<Received> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (received: Received) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(received);
      };
      const headers: Record<string, string> = { ...request.headers };
      if (request.method !== 'GET' && request.method !== 'HEAD')
        headers['content-length'] = String(request.body.length);
      let outgoing: http.ClientRequest;
      try {
        outgoing = (this.base.protocol === 'https:' ? https : http).request({
          agent: this.agent,
          protocol: this.base.protocol,
          hostname: this.base.hostname.replace(/^\[|\]$/g, ''),
          port: this.base.port || undefined,
          method: request.method,
          path: `${this.prefix}${request.path}`,
          headers,
        });
      } catch (error) {
        resolve({ kind: 'failed', reason: `the request cannot be sent: ${describeError(error)}` });
        return;
      }
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`no complete answer within ${this.options.timeoutMs / 1000} s`));
      }, this.options.timeoutMs);
      outgoing.on('error', (error) => finish({ kind: 'failed', reason: describeError(error) }));
      outgoing.on('response', (incoming) => {
        const body = new BodyCollector(this.options.keepBytes);
        incoming.on('data', (chunk: Buffer) => body.add(chunk));
        incoming.on('error', (error) => finish({ kind: 'failed', reason: describeError(error) }));
        incoming.on('end', () => {
          if (!incoming.complete) {
            finish({ kind: 'failed', reason: 'the answer broke off' });
            return;
          }
          const type = incoming.headers['content-type'] ?? '';
          finish(body.answer(incoming.statusCode ?? 0, incoming.statusMessage ?? '', type));
        });
        // Closed before its end (finish ignores this once the answer is complete).
        incoming.on('close', () => finish({ kind: 'failed', reason: 'the answer broke off' }));
      });
      outgoing.end(request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
