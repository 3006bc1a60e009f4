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
import { randomInt } from 'node:crypto';
import type { CacheObserver } from '../cache/observer.ts';
import type { Call } from '../protocol/binding.ts';
import { FrequencySketch } from './frequency-sketch.ts';

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
  readonly call: Call;
  /** Whether its binding answers If-None-Match (HTTP GET). */
  readonly conditional: boolean;
}

/** An answer to keep in the file tier: a CachedAnswer whose body may still be in parts. */
export interface FileableAnswer extends Omit<CachedAnswer, 'body' | 'head'> {
  readonly body: readonly Buffer[];
}

/** The answer cache's second tier (answer-file.ts `AnswerFile`). */
export interface AnswerTier {
  /** The most answers it holds: its frequency sketch is sized by it (ResponseCache.fileAsked). */
  readonly capacity: number;
  get(
    key: RequestKey,
    version: number,
    now: number,
    allocate?: (length: number) => Buffer,
  ): CachedAnswer | undefined;
  /**
   * Keeps the answer, in place of what it holds that `asked` (how often a request was asked
   * for lately, by RequestKey.counted) says is worth less; never throws.
   */
  keep(key: RequestKey, answer: FileableAnswer, now: number, asked?: (counted: number) => number): void;
}

/** The head list of a cached answer: a flat list is node's cheapest writeHead input. */
export function cachedHead(headers: Readonly<Record<string, string>>, bodyLength: number): string[] {
  return headList(Object.entries(headers).flat(), bodyLength);
}

/**
 * The head list from the headers as a flat name/value list: then content-length, and an
 * `x-request-id` whose value each answer fills in (answerHead).
 */
export function headList(pairs: readonly string[], bodyLength: number): string[] {
  return [...pairs, 'content-length', String(bodyLength), 'x-request-id', ''];
}

/** The cached head with this request's id in its last slot. */
export function answerHead(answer: CachedAnswer, requestId: string): string[] {
  const head = answer.head.slice();
  head[head.length - 1] = requestId;
  return head;
}

/**
 * What an entry holds besides the bytes `sizeOf` counts: its slot, key and answer objects,
 * the headers, the head list, the call with its parameters' Map, the buffers' own objects
 * and the cache's maps. Measured at 1,100-1,600 bytes (response-cache-memory.test.ts: a
 * full cache holds at most its budget); counted as 256 before, a budget filled with small
 * answers held up to twice its size. 2 KiB leaves room for what that measure cannot see
 * (the allocator's own overhead).
 */
const ENTRY_BYTES = 2048;

/** Larger request bodies are not worth keying on. */
export const MAX_KEYED_BODY = 16 * 1024;
/** Larger answers are streamed each time rather than held. */
export const MAX_CACHED_ANSWER = 4 * 1024 * 1024;
/** Entries looked at, oldest first, for room for a new one: an admission's work is bounded. */
const VICTIMS_SCANNED = 64;

/**
 * A request as the cache knows it: everything an answer depends on. The `Authorization`
 * header is part of it, so a hit always carries the very token that was authenticated for
 * the entry (and is checked again, in case it was revoked since).
 */
export interface RequestKey {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly authorization: string;
  readonly contentType: string;
  readonly soapAction: string;
  /** A POST's body, compared byte for byte on a lookup. */
  readonly body: Buffer | undefined;
  /**
   * Which bucket the request is looked up in: a hash of a POST's URL and body, or a GET's
   * URL itself (V8 hashes a string natively and keeps the hash with it).
   */
  readonly hash: number | string;
  /** The request's number in the frequency sketch (admits): the POST's hash, or the URL's. */
  readonly counted: number;
  /**
   * The file tier's head and hash of the request (answer-file.ts `filed`), made at its first
   * lookup there and kept with the request's own key; undefined in a key the memory tier keeps.
   * They are of this very request: a copy that changes any other field must drop them, as
   * keptKey does.
   */
  filed: FiledRequest | undefined;
}

/** A request as the file tier writes and finds it: its record's head, and the hash of the whole. */
export interface FiledRequest {
  readonly head: Buffer;
  readonly hash: number;
}

/**
 * The hashes are seeded per process, so requests that collide cannot be worked out in
 * advance; even so, a bucket holds at most MAX_BUCKET entries, so crafted collisions only
 * cost their own cache hits and a bounded scan.
 */
const SEED = randomInt(2 ** 31);
const FNV_PRIME = 16777619;
const MAX_BUCKET = 8;

/**
 * FNV-1a over 32-bit words from `seed` (the URL's hashText, so seeded per process), folded
 * into V8's small-integer range (a Map keyed by small integers allocates nothing per
 * lookup). Hashing the bytes in place is what makes the key cheap: building one string of
 * the request (a latin1 copy of the body, concatenated and flattened for the Map) cost more
 * than three times as much per request.
 */
function hashBytes(bytes: Buffer, seed: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let hash = seed ^ bytes.length;
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) hash = Math.imul(hash ^ view.getInt32(i, true), FNV_PRIME);
  for (; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash >> 2;
}

/** FNV-1a over a string's UTF-16 code units, seeded per process. */
function hashText(text: string): number {
  let hash = SEED ^ text.length;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}

/** The key of a GET, or of a POST with a body of at most MAX_KEYED_BODY bytes; other requests are not cached. */
export function requestKey(
  method: string,
  url: string,
  headers: {
    authorization?: string | undefined;
    contentType?: string | undefined;
    soapAction?: string | undefined;
  },
  body: Buffer | undefined,
): RequestKey | undefined {
  const authorization = headers.authorization ?? '';
  if (method === 'GET') {
    return {
      method,
      url,
      authorization,
      contentType: '',
      soapAction: '',
      body: undefined,
      hash: url,
      counted: hashText(url),
      filed: undefined,
    };
  }
  if (method !== 'POST' || body === undefined || body.length > MAX_KEYED_BODY) return undefined;
  // The URL too: one form body (`anhangID=5`) posted to two operations is two requests, and
  // the sketch counted them as one until 2026-11-29 (docs/performance.md, "The twenty-fourth round").
  const hash = hashBytes(body, hashText(url));
  return {
    method,
    url,
    authorization,
    contentType: headers.contentType ?? '',
    soapAction: headers.soapAction ?? '',
    body,
    hash,
    counted: hash,
    filed: undefined,
  };
}

function sameRequest(a: RequestKey, b: RequestKey): boolean {
  return (
    a.hash === b.hash &&
    a.method === b.method &&
    a.url === b.url &&
    a.authorization === b.authorization &&
    a.contentType === b.contentType &&
    a.soapAction === b.soapAction &&
    (a.body === undefined ? b.body === undefined : b.body !== undefined && a.body.equals(b.body))
  );
}

/**
 * A key of its own: a request's body may be a view of a larger socket buffer, and the
 * request's own key may hold the file tier's head (`filed`), a slice of node's shared 8 KiB
 * pool, which a key kept for long would keep from being reused.
 */
export function keptKey(key: RequestKey): RequestKey {
  if (key.body === undefined) return { ...key, filed: undefined };
  const body = Buffer.allocUnsafeSlow(key.body.length);
  key.body.copy(body);
  return { ...key, body, filed: undefined };
}

/**
 * An answer that owns exactly its bytes. A body may be a view of more memory: a slice of
 * node's shared 8 KiB pool (Buffer.concat makes small buffers there), or part of a stored
 * fragment; kept as it is, it would hold all of that memory while the cache counts only
 * its own length, and 30,000 small answers would pin several times the budget.
 */
function keptAnswer(answer: CachedAnswer): CachedAnswer {
  const { body } = answer;
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return answer;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return { ...answer, body: own };
}

/**
 * A sketch's row width for `entries` held: eight counters each, as TinyLFU sizes it, within
 * 2^6 and 2^`most`.
 */
function sketchRowBits(entries: number, most: number): number {
  return Math.min(most, Math.max(6, Math.ceil(Math.log2(Math.max(1, entries) * 8))));
}

interface Slot {
  readonly key: RequestKey;
  readonly answer: CachedAnswer;
  readonly size: number;
  /** Read since the eviction sweep last passed it ("second chance", instead of re-inserting on every hit). */
  used: boolean;
}

/**
 * Bounded by bytes. Entries are found by their key's hash, then compared in full; eviction
 * is CLOCK-like: a hit only marks its entry used, so a hit costs one Map lookup and one
 * comparison; when over the bound, the oldest entries go unless they were used, which are
 * moved to the back once.
 */
export class ResponseCache {
  private readonly buckets = new Map<number | string, Slot[]>();
  /** How often each request was asked for lately (admits). */
  private readonly asked: FrequencySketch;
  /** The same over the file tier's span (keepInFile), when there is one. */
  private readonly fileAsked: FrequencySketch | undefined;
  /** Every entry, oldest first. */
  private readonly order = new Set<Slot>();
  private bytes: number;

  /**
   * `observer` is told of every lookup's result (the hit-rate metric); `file`, the second
   * tier (answer-file.ts), is looked in when memory has no answer, and `fileObserver` told
   * how that went.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly observer?: CacheObserver,
    private readonly file?: AnswerTier,
    private readonly fileObserver?: CacheObserver,
  ) {
    // Eight counters a row for each entry the budget could hold at the least, and its memory
    // counted in the budget: 256 KiB of the default 16 MiB.
    this.asked = new FrequencySketch(sketchRowBits(maxBytes / ENTRY_BYTES, 17));
    this.bytes = this.asked.bytes;
    // The file holds a thousand times the answers memory does, asked for again that much
    // later: a sketch of its own, sized by its records as memory's is by its entries, counts
    // as long as they stay (4 MiB for the default 131,072, the file tier's memory, not this one's).
    this.fileAsked = file && new FrequencySketch(sketchRowBits(file.capacity, 20));
  }

  private static sizeOf(key: RequestKey, bodyBytes: number): number {
    const text = key.url.length + key.authorization.length + key.contentType.length + key.soapAction.length;
    return text * 2 + (key.body?.length ?? 0) + bodyBytes + ENTRY_BYTES;
  }

  private find(key: RequestKey): Slot | undefined {
    const bucket = this.buckets.get(key.hash);
    if (bucket === undefined) return undefined;
    for (const slot of bucket) if (sameRequest(slot.key, key)) return slot;
    return undefined;
  }

  private remove(slot: Slot): void {
    this.order.delete(slot);
    this.bytes -= slot.size;
    const bucket = this.buckets.get(slot.key.hash)!;
    if (bucket.length === 1) this.buckets.delete(slot.key.hash);
    else bucket.splice(bucket.indexOf(slot), 1);
  }

  /**
   * The answer for `key` if it belongs to `version` and has not expired; the observer is
   * told of every lookup (each request looks up once). One found in the file tier is kept
   * in memory too when `admits` says it is worth it (a copy: its body is in a lent buffer),
   * so that memory holds the answers asked for most, not only those missed by both tiers.
   */
  get(
    key: RequestKey,
    version: number,
    now: number,
    allocate?: (length: number) => Buffer,
  ): CachedAnswer | undefined {
    this.asked.add(key.counted);
    this.fileAsked?.add(key.counted);
    const slot = this.find(key);
    if (slot !== undefined && (slot.answer.version !== version || now >= slot.answer.expiresAt)) {
      this.remove(slot);
    } else if (slot !== undefined) {
      slot.used = true;
      this.observer?.lookup('hit');
      return slot.answer;
    }
    this.observer?.lookup('miss');
    if (this.file === undefined) return undefined;
    const filed = this.file.get(key, version, now, allocate);
    this.fileObserver?.lookup(filed ? 'hit' : 'miss');
    if (filed !== undefined && this.admits(key, filed.body.length)) this.set(key, filed);
    return filed;
  }

  /**
   * Keeps the answer in the file tier when its request was asked for before, in place of
   * answers asked for less often when the file is full (the tier's `keep`), both by the file's
   * own sketch. `body` is the answer's parts, all at hand. Until 2026-11-29 memory's sketch
   * decided: it forgets within the lookups memory's budget is sized for (65,536 by default),
   * so under many ids drawn evenly, each asked for again only after about as many, few answers
   * were ever filed and the cache made that traffic slower than none; keeping every answer at
   * its first miss instead let requests asked for once push popular answers out
   * (docs/performance.md, "The twenty-third round").
   */
  keepInFile(key: RequestKey, answer: FileableAnswer, now: number): void {
    if (this.file !== undefined && this.fileEstimate(key.counted) >= 2)
      this.file.keep(key, answer, now, this.fileEstimate);
  }

  private readonly fileEstimate = (counted: number): number => this.fileAsked?.estimate(counted) ?? 0;

  set(key: RequestKey, answer: CachedAnswer): void {
    const size = ResponseCache.sizeOf(key, answer.body.length);
    // The same bound as admits': an entry of more than a quarter of the budget would flush too much.
    if (size > this.maxBytes / 4) return;
    const old = this.find(key);
    if (old) this.remove(old);
    const bucket = this.buckets.get(key.hash);
    if (bucket !== undefined && bucket.length >= MAX_BUCKET) this.remove(bucket[0]!);
    const slot: Slot = { key: keptKey(key), answer: keptAnswer(answer), size, used: false };
    const kept = this.buckets.get(key.hash);
    if (kept === undefined) this.buckets.set(key.hash, [slot]);
    else kept.push(slot);
    this.order.add(slot);
    this.bytes += size;
    for (const oldest of this.order) {
      if (this.bytes <= this.maxBytes) break;
      if (oldest.used) {
        oldest.used = false;
        this.order.delete(oldest);
        this.order.add(oldest);
      } else {
        this.remove(oldest);
      }
    }
  }

  get size(): number {
    return this.order.size;
  }

  /**
   * Whether the answer to this request, of `bodyBytes`, is worth keeping (W-TinyLFU's
   * admission, without its window: Einziger, Friedman and Manes, "TinyLFU", 2017). Traffic that
   * rarely asks for the same thing twice (many ids, drawn evenly) would otherwise have every
   * answer copied into one buffer and kept, only to be evicted unread: on the realistic mix that
   * made the server slower with the cache than without it, its churn held more memory than the
   * budget, and each copy was memory outside V8's heap that brings its next major collection
   * closer. So an answer is kept only when its request was asked for before (`get` counts every
   * lookup, in a sketch that halves its counts as traffic goes on), and, when the cache is full,
   * more often than every entry it would evict (an entry read since it was stored first gets
   * its second chance, as `set`'s eviction gives it): the entries that are rarely asked for make
   * room, the popular ones stay. Until 2026-11-27 an answer was kept at its second request
   * within the last 16,384, whatever it evicted (docs/performance.md, "The thirteenth round").
   */
  admits(key: RequestKey, bodyBytes: number): boolean {
    const size = ResponseCache.sizeOf(key, bodyBytes);
    if (size > this.maxBytes / 4) return false;
    const asked = this.asked.estimate(key.counted);
    if (asked < 2) return false;
    const need = this.bytes + size - this.maxBytes;
    if (need <= 0) return true;
    let freed = 0;
    let scanned = 0;
    for (const slot of this.order) {
      if (freed >= need || scanned++ === VICTIMS_SCANNED) break;
      if (slot.used) {
        // Its second chance, as set's eviction would give it: moved to the back, unread again.
        slot.used = false;
        this.order.delete(slot);
        this.order.add(slot);
        continue;
      }
      if (this.asked.estimate(slot.key.counted) >= asked) return false;
      freed += slot.size;
    }
    return freed >= need;
  }
}
