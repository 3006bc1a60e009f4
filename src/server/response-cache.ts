/**
 * Whole answers, kept per content version. Content changes only on import, so the bytes
 * of a successful answer to the same request stay right until the next import (or until
 * an article's visibility window closes). A hit skips decoding, the store and the
 * writer; authentication and the rate limit still run for every request.
 *
 * The key is the request as sent: method, path, query, Authorization, and for POST the
 * content type, SOAPAction and body, so two requests share an entry only when they are
 * the same bytes in everything an answer depends on.
 */
import type { Operation } from '../contract/operations.ts';
import type { BindingName } from '../protocol/binding.ts';
import type { SoapVersion } from '../protocol/namespaces.ts';

export interface CachedAnswer {
  readonly version: number;
  /** The answer is stale from this instant on (ms), e.g. when an article's window closes. */
  readonly expiresAt: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly operation: Operation;
  readonly binding: BindingName;
  readonly soapVersion: SoapVersion | undefined;
  /** The token the request carried, checked again on every hit. */
  readonly token: string | undefined;
  readonly authenticate: boolean;
  /** `headers` plus content-length, ready for writeHead. */
  readonly head: Readonly<Record<string, string>>;
  /** What the request log and error rendering need to know of the call. */
  readonly call: {
    readonly binding: BindingName;
    readonly operation: Operation;
    readonly parameters: ReadonlyMap<string, readonly string[]>;
    readonly token: string | undefined;
    readonly authenticate: boolean;
    readonly soapVersion?: SoapVersion;
  };
}

/** Larger request bodies are not worth keying on. */
export const MAX_KEYED_BODY = 16 * 1024;
/** Larger answers are streamed each time rather than held. */
export const MAX_CACHED_ANSWER = 4 * 1024 * 1024;

/**
 * Everything an answer depends on: the `Authorization` header is part of the key, so a
 * hit always carries the very token that was authenticated for the entry (and is checked
 * again, in case it was revoked since).
 */
export function requestKey(
  method: string,
  url: string,
  headers: { authorization?: string; contentType?: string; soapAction?: string },
  body: Buffer | undefined,
): string | undefined {
  const auth = headers.authorization ?? '';
  if (method === 'GET') return `G ${url}\u0000${auth}`;
  if (method !== 'POST' || body === undefined || body.length > MAX_KEYED_BODY) return undefined;
  const { contentType = '', soapAction = '' } = headers;
  return `P ${url}\u0000${auth}\u0000${contentType}\u0000${soapAction}\u0000${body.toString('latin1')}`;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  private static sizeOf(key: string, answer: CachedAnswer): number {
    return key.length * 2 + answer.body.length + 256;
  }

  /** The answer for `key` if it belongs to `version` and has not expired. */
  get(key: string, version: number, now: number): CachedAnswer | undefined {
    const answer = this.entries.get(key);
    if (!answer) return undefined;
    this.entries.delete(key);
    if (answer.version !== version || now >= answer.expiresAt) {
      this.bytes -= ResponseCache.sizeOf(key, answer);
      return undefined;
    }
    this.entries.set(key, answer); // most recently used last
    return answer;
  }

  set(key: string, answer: CachedAnswer): void {
    const size = ResponseCache.sizeOf(key, answer);
    if (size > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= ResponseCache.sizeOf(key, old);
    }
    this.entries.set(key, answer);
    this.bytes += size;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= ResponseCache.sizeOf(oldest, value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
