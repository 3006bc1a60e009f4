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
import type { CacheObserver } from '../store/record-cache.ts';

export interface CachedAnswer {
  readonly version: number;
  /** The answer is stale from this instant on (ms), e.g. when an article's window closes. */
  readonly expiresAt: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /**
   * `headers` plus content-length as writeHead's flat name/value list, ending in an
   * `x-request-id` whose value each answer fills in (see answerHead).
   */
  readonly head: readonly string[];
  /**
   * The call the answer was made for: its operation and binding for the request log and
   * error rendering, and the token it carried, checked again on every hit.
   */
  readonly call: {
    readonly binding: BindingName;
    readonly operation: Operation;
    readonly parameters: ReadonlyMap<string, readonly string[]>;
    readonly token: string | undefined;
    readonly authenticate: boolean;
    readonly soapVersion?: SoapVersion;
  };
}

/** The head list of a cached answer: a flat list is node's cheapest writeHead input. */
export function cachedHead(headers: Readonly<Record<string, string>>, bodyLength: number): string[] {
  return [...Object.entries(headers).flat(), 'content-length', String(bodyLength), 'x-request-id', ''];
}

/** The cached head with this request's id in its last slot. */
export function answerHead(answer: CachedAnswer, requestId: string): string[] {
  const head = answer.head.slice();
  head[head.length - 1] = requestId;
  return head;
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

interface Slot {
  readonly answer: CachedAnswer;
  readonly size: number;
  /** Read since the eviction sweep last passed it ("second chance", instead of re-inserting on every hit). */
  used: boolean;
}

/**
 * Bounded by bytes. Eviction is CLOCK-like: a hit only marks its entry used, so a hit costs
 * one Map lookup; when over the bound, the oldest entries go unless they were used, which
 * are moved to the back once.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Slot>();
  private bytes = 0;

  /** `observer` is told of every lookup's result (the hit-rate metric). */
  constructor(
    private readonly maxBytes: number,
    private readonly observer?: CacheObserver,
  ) {}

  private static sizeOf(key: string, answer: CachedAnswer): number {
    return key.length * 2 + answer.body.length + 256;
  }

  /**
   * The answer for `key` if it belongs to `version` and has not expired. `observe: false`
   * keeps the lookup from the observer, for a caller that reports it itself (one request,
   * one lookup counted).
   */
  get(key: string, version: number, now: number, observe = true): CachedAnswer | undefined {
    const slot = this.entries.get(key);
    if (slot !== undefined && (slot.answer.version !== version || now >= slot.answer.expiresAt)) {
      this.entries.delete(key);
      this.bytes -= slot.size;
    } else if (slot !== undefined) {
      slot.used = true;
      if (observe) this.observer?.lookup('hit');
      return slot.answer;
    }
    if (observe) this.observer?.lookup('miss');
    return undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    const size = ResponseCache.sizeOf(key, answer);
    if (size > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.size;
    }
    this.entries.set(key, { answer, size, used: false });
    this.bytes += size;
    for (const [oldest, slot] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      if (slot.used && oldest !== key) {
        slot.used = false;
        this.entries.set(oldest, slot);
      } else {
        this.bytes -= slot.size;
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
