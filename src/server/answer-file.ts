/**
 * The answer cache's second tier: whole answers in a file of this process's own, each read
 * back with one `pread` into a buffer lent to its request. The first tier (response-cache.ts)
 * holds answers in memory, within a budget that must leave the server under its memory
 * target, so under many different requests most of what it keeps is evicted before it is
 * asked for again; a request then took the whole path (decoding, the answer pack or the
 * store, the envelope). Here the same answers are kept by the hundred thousand at the cost of
 * about 80 bytes of memory each, the bytes being the kernel's page cache (docs/performance.md,
 * "The twenty-first round").
 *
 * A record is the request as the cache keys it (its method, URL and headers as JSON, then its
 * body), the answer's head (its headers and the call's token, as JSON), then the answer's
 * body; the index in memory holds where it is, its lengths and a seeded hash of the whole
 * request, in typed arrays. A lookup reads only a record whose hash and lengths match, and
 * compares the whole request read back, so a record answers only the very bytes it was kept
 * for. The call's operation, binding and route, which a client cannot vary, are kept once
 * for all the answers that share them.
 *
 * The file holds one content version, like the answer pack: a lookup for any other version
 * empties it (a store restored from a backup may bring a version number back with other
 * content, so not only a newer one), and an answer of another version is not kept. Once
 * `maxBytes` of file or `maxEntries` records are used, a new record takes the place of the
 * oldest, round the file as a ring, unless one of them is asked for at least as often and
 * has not held its place before (`place`); so the file follows the traffic instead of
 * keeping whatever filled it first.
 * Requests that differ only in what the answer does not depend on (an Authorization header
 * sent to a public operation) are counted as one by that estimate and kept as many, within
 * the bounds. A file that cannot be written or read closes the tier (`onError`), and every
 * lookup misses from then on.
 *
 * Keeping is dear while the file fills: a write to a part of the file not written before
 * costs the kernel new pages (22-179 µs for 37 KB on a fresh VM, against 8-10 µs over pages
 * written before), and in a server's first minutes every miss asked for twice was kept. A
 * server spent 13-28% more CPU a request on uniform traffic in its first minute with the
 * file than without it, and in a duel of two builds up to 65% more than with the bound below
 * (docs/performance.md, the twenty-fourth and twenty-eighth rounds). So keeping has a budget
 * of time, as flash caches bound their write rate: at most `keepShare` of the process's time
 * goes to keeping answers (each keep's whole time measured, its write with it), with at most
 * KEEP_BURST_MS of credit at once (one keep may overdraw it; a long one is paid off before
 * the next). An answer offered while the budget is spent is not kept; it is offered again at
 * its request's next miss in both tiers.
 */
import { closeSync, readSync, writevSync } from 'node:fs';
import type { Call } from '../protocol/binding.ts';
import { refill, type TokenBucket } from '../support/token-bucket.ts';
import { openUnlinkedFile } from '../support/unlinked-file.ts';
import {
  type AnswerTier,
  type CachedAnswer,
  type FileableAnswer,
  type FiledRequest,
  headList,
  type RequestKey,
} from './response-cache.ts';

export interface AnswerFileOptions {
  /** The folder the file is made in (it is unlinked at once). */
  readonly dir: string;
  /** Bound of the file. */
  readonly maxBytes: number;
  /** Bound of the index: records kept (about 80 bytes of memory each). */
  readonly maxEntries?: number;
  /** Told when the file cannot be written or read: the tier is then closed. */
  readonly onError?: (error: unknown) => void;
  /** The share of the time keeping answers may take (DEFAULT_KEEP_SHARE); 1 or more: no bound. */
  readonly keepShare?: number;
  /** Monotonic milliseconds from any start (`performance.now` by default): what keeping's budget is counted in. */
  readonly clock?: () => number;
}

/** What the answers of one operation, binding and route share. */
interface Shape {
  /** Without a token: each record holds its own. */
  readonly call: Call;
  readonly conditional: boolean;
}

/** An answer's head as its record holds it, parsed. */
interface Head {
  readonly headers: Readonly<Record<string, string>>;
  /** The headers as a flat name/value list (headList's). */
  readonly pairs: readonly string[];
  readonly token: string | undefined;
}

const DEFAULT_MAX_ENTRIES = 131_072;
/**
 * Keeping's share of the time. A full file's keeps, over pages written before, take about
 * 2% at the mix's rates (2,000 keeps a second at 8-10 µs each); the filling of an empty one
 * is spread over the first minutes instead of taking a fifth or more of the first.
 */
export const DEFAULT_KEEP_SHARE = 0.03;
/** The most time keeping may take at once, ms (a budget unspent for a while is not saved up beyond it). */
export const KEEP_BURST_MS = 20;
/** Slots of a new index; it doubles up to maxEntries as records come. */
const INITIAL_CAPACITY = 1024;
/** Records one answer may take the place of: a keep's work is bounded. */
const MAX_GIVEN_UP = 256;
/** Shapes kept at most: more than the contract's operations × bindings × routes. */
const MAX_SHAPES = 4096;
/** Heads remembered parsed (most answers share theirs); emptied when full. */
const MAX_HEADS = 4096;
/** Live records under one whole-request hash (keyHash): one is shared only by chance. */
const MAX_CHAIN = 8;
/** Records walked under one hash, expired ones included. */
const MAX_WALK = 4 * MAX_CHAIN;
const FNV_PRIME = 16777619;
/** A call's parameters are not kept: a cached answer is sent as it is, never invoked again. */
const NO_PARAMETERS: ReadonlyMap<string, readonly string[]> = new Map();

/** The request as a record starts: its key's fields but the body, as JSON, then a newline. */
export function requestHead(key: RequestKey): Buffer {
  return Buffer.from(
    `${JSON.stringify([key.method, key.url, key.authorization, key.contentType, key.soapAction])}\n`,
    'utf8',
  );
}

/**
 * The key's head and hash, made once and kept on the key (RequestKey.filed): a miss looks its
 * key up (get) and, its answer made, keeps it (keep); both need them, and making them is about
 * a microsecond. Until 2026-11-29 they were remembered in a WeakMap by the key: an entry a
 * request, whose table V8 grows and sweeps in the old generation, and a server answering from
 * this tier ran about twice the mark-compacts (docs/performance.md, "The twenty-ninth round").
 */
function filed(key: RequestKey): FiledRequest {
  let known = key.filed;
  if (known === undefined) {
    const head = requestHead(key);
    known = { head, hash: keyHash(head, key.body, key.counted) };
    key.filed = known;
  }
  return known;
}

/**
 * FNV-1a of the whole request, from the request's own seeded hash (RequestKey.counted), so
 * that requests a crafted collision puts under one hash still differ here, and a lookup
 * reads no record of another request.
 */
export function keyHash(head: Buffer, body: Buffer | undefined, seed: number): number {
  let hash = seed;
  for (let i = 0; i < head.length; i++) hash = Math.imul(hash ^ head[i]!, FNV_PRIME);
  if (body) for (let i = 0; i < body.length; i++) hash = Math.imul(hash ^ body[i]!, FNV_PRIME);
  return hash | 0;
}

/**
 * The records, oldest first, in a ring of slots: the record numbered `seq` (counted from the
 * file's emptying) is in slot `seq % capacity`. Typed arrays, not an object a record.
 */
class Index {
  readonly at: Float64Array;
  readonly expiresAt: Float64Array;
  /** Lengths of the record's request head, request body, answer head and answer body. */
  readonly headLength: Uint32Array;
  readonly bodyLength: Uint32Array;
  readonly metaLength: Uint32Array;
  readonly answerLength: Uint32Array;
  readonly shape: Uint32Array;
  /** keyHash of the whole request (its head and body), from its own hash. */
  readonly hash: Int32Array;
  /** RequestKey.counted: how the frequency sketch knows the request (keep's `asked`). */
  readonly counted: Int32Array;
  /** 1 until the record has once kept another out (place). */
  readonly mayHold: Uint8Array;
  /** The seq of the record kept before it under the same hash (gone once below the oldest's), or -1. */
  readonly next: Float64Array;

  constructor(readonly capacity: number) {
    this.at = new Float64Array(capacity);
    this.expiresAt = new Float64Array(capacity);
    this.headLength = new Uint32Array(capacity);
    this.bodyLength = new Uint32Array(capacity);
    this.metaLength = new Uint32Array(capacity);
    this.answerLength = new Uint32Array(capacity);
    this.shape = new Uint32Array(capacity);
    this.hash = new Int32Array(capacity);
    this.counted = new Int32Array(capacity);
    this.mayHold = new Uint8Array(capacity);
    this.next = new Float64Array(capacity);
  }

  slot(seq: number): number {
    return seq % this.capacity;
  }

  length(slot: number): number {
    return (
      this.headLength[slot]! + this.bodyLength[slot]! + this.metaLength[slot]! + this.answerLength[slot]!
    );
  }

  /** A larger ring holding the records from `oldest` up to `end` (their slots move with the capacity). */
  grown(capacity: number, oldest: number, end: number): Index {
    const to = new Index(capacity);
    for (const field of INDEX_FIELDS) {
      const from: IndexField = this[field];
      const into: IndexField = to[field];
      for (let seq = oldest; seq < end; seq++) into[to.slot(seq)] = from[this.slot(seq)]!;
    }
    return to;
  }
}

type IndexField = Float64Array | Uint32Array | Int32Array | Uint8Array;
type IndexArrayName = { [K in keyof Index]: Index[K] extends IndexField ? K : never }[keyof Index];
/**
 * Every array of a record's fields, what `grown` carries over: the object must name each of
 * Index's arrays (`satisfies`), so one added to Index and left out here does not compile.
 */
const INDEX_FIELDS = Object.keys({
  at: 0,
  expiresAt: 0,
  headLength: 0,
  bodyLength: 0,
  metaLength: 0,
  answerLength: 0,
  shape: 0,
  hash: 0,
  counted: 0,
  mayHold: 0,
  next: 0,
} satisfies Record<IndexArrayName, 0>) as IndexArrayName[];

export class AnswerFile implements AnswerTier {
  private fd: number | undefined;
  private version = -1;
  private index = new Index(INITIAL_CAPACITY);
  /** The seq of the oldest record kept, and the next record's. */
  private oldest = 0;
  private end = 0;
  /** Where the next record goes unless it must wrap to the file's start. */
  private writeAt = 0;
  /** Bytes of the records kept. */
  private liveBytes = 0;
  /**
   * The seq of the newest record by its whole request's hash (keyHash), not
   * RequestKey.counted: that is a GET's URL alone, which every Authorization sent with it shares.
   */
  private readonly newest = new Map<number, number>();
  private readonly shapes: Shape[] = [];
  private readonly shapeIds = new Map<string, number>();
  private readonly heads = new Map<string, Head>();
  private readonly maxEntries: number;
  private readonly clock: () => number;
  /** Keeping's budget: ms of keeping left, full until its first keep (mayKeep). */
  private readonly budget: TokenBucket = { tokens: KEEP_BURST_MS, updated: Number.NEGATIVE_INFINITY };

  private constructor(
    fd: number,
    private readonly options: AnswerFileOptions,
    private readonly keepShare: number,
  ) {
    this.fd = fd;
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.clock = options.clock ?? (() => performance.now());
  }

  static open(options: AnswerFileOptions): AnswerFile {
    const share = options.keepShare ?? DEFAULT_KEEP_SHARE;
    // Checked before the file is made, so that a refused setting leaves no descriptor open.
    if (!(share > 0)) throw new RangeError(`keepShare must be more than 0, not ${share}`);
    return new AnswerFile(openUnlinkedFile(options.dir, 'answer-cache'), options, share);
  }

  /** Records kept. */
  get size(): number {
    return this.end - this.oldest;
  }

  /** Bytes of the file the records kept take. */
  get bytes(): number {
    return this.liveBytes;
  }

  /** The most records it holds (maxEntries). */
  get capacity(): number {
    return this.maxEntries;
  }

  /**
   * The answer kept for this very request and `version`, not expired at `now`, its body in a
   * buffer from `allocate` (which the caller may lend until the answer is written).
   */
  get(
    key: RequestKey,
    version: number,
    now: number,
    allocate: (length: number) => Buffer = Buffer.allocUnsafe,
  ): CachedAnswer | undefined {
    if (this.fd === undefined) return undefined;
    if (version !== this.version) {
      this.empty(version);
      return undefined;
    }
    try {
      const { head, hash } = filed(key);
      let seq = this.newest.get(hash);
      if (seq === undefined) return undefined;
      const bodyLength = key.body?.length ?? 0;
      const { index } = this;
      for (let walked = 0; seq >= this.oldest && walked < MAX_WALK; walked++) {
        const slot = index.slot(seq);
        seq = index.next[slot]!;
        if (index.hash[slot] !== hash || index.headLength[slot] !== head.length) continue;
        if (index.bodyLength[slot] !== bodyLength || now >= index.expiresAt[slot]!) continue;
        const metaAt = head.length + bodyLength;
        const answerAt = metaAt + index.metaLength[slot]!;
        const record = allocate(answerAt + index.answerLength[slot]!);
        if (!this.read(record, index.at[slot]!)) return undefined;
        if (!record.subarray(0, head.length).equals(head)) continue;
        if (key.body && !record.subarray(head.length, metaAt).equals(key.body)) continue;
        return this.answerOf(slot, record.toString('utf8', metaAt, answerAt), record.subarray(answerAt));
      }
    } catch (error) {
      this.fail(error);
    }
    return undefined;
  }

  /**
   * Keeps `answer` to `key`, in place of the oldest records when the file or the index is
   * full (place), unless its request's hash holds MAX_CHAIN records live at `now` or one of
   * them is already this request's (many connections missing the same answer at once would
   * each keep it), or keeping's budget of time is spent (mayKeep). `asked` tells how often a
   * request was asked for lately (the frequency sketch, by RequestKey.counted), for place's
   * choice; without it, the oldest always go.
   */
  keep(key: RequestKey, answer: FileableAnswer, now: number, asked?: (counted: number) => number): void {
    if (this.keepShare >= 1) {
      this.tryKeep(key, answer, now, asked);
      return;
    }
    const started = this.clock();
    if (!this.mayKeep(started)) return;
    this.tryKeep(key, answer, now, asked);
    // Each keep that ran is charged, one that kept nothing too; a refused one costs nothing.
    this.budget.tokens -= Math.max(0, this.clock() - started);
  }

  /** keepNow, closing the tier if the file fails. */
  private tryKeep(
    key: RequestKey,
    answer: FileableAnswer,
    now: number,
    asked: ((counted: number) => number) | undefined,
  ): void {
    try {
      this.keepNow(key, answer, now, asked);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Whether keeping's budget, given back at keepShare up to KEEP_BURST_MS, has time left at `at` (clock). */
  private mayKeep(at: number): boolean {
    refill(this.budget, at, this.keepShare, KEEP_BURST_MS);
    return this.budget.tokens > 0;
  }

  private keepNow(
    key: RequestKey,
    answer: FileableAnswer,
    now: number,
    asked: ((counted: number) => number) | undefined,
  ): void {
    if (this.fd === undefined || answer.version !== this.version) return;
    const bodyLength = key.body?.length ?? 0;
    let answerLength = 0;
    for (const part of answer.body) answerLength += part.length;
    // Too large for the file whatever it gave up, before any of the work below.
    if (bodyLength + answerLength > this.options.maxBytes) return;
    const { head, hash } = filed(key);
    const chainHead = this.newest.get(hash) ?? -1;
    if (!this.roomInChain(chainHead, now, hash, head.length, bodyLength)) return;
    const shape = this.shapeOf(answer.call, answer.conditional);
    if (shape === undefined) return;
    const meta = Buffer.from(
      JSON.stringify([Object.entries(answer.headers).flat(), answer.call.token ?? null]),
      'utf8',
    );
    const length = head.length + bodyLength + meta.length + answerLength;
    if (length > this.options.maxBytes) return;
    const at = this.place(length, now, asked?.(key.counted), asked);
    if (at === undefined) return;
    const pieces = [head, ...(key.body ? [key.body] : []), meta, ...answer.body];
    let done = 0;
    // writev may take less than everything (a full disk); what it took is not used.
    while (done < length) {
      const wrote = writevSync(this.fd!, done === 0 ? pieces : rest(pieces, done), at + done);
      if (wrote <= 0) throw new Error(`answer cache file: wrote ${wrote} bytes`);
      done += wrote;
    }
    if (this.end - this.oldest === this.index.capacity)
      this.index = this.index.grown(
        Math.min(this.maxEntries, 2 * this.index.capacity),
        this.oldest,
        this.end,
      );
    const { index } = this;
    const seq = this.end++;
    const slot = index.slot(seq);
    index.at[slot] = at;
    index.expiresAt[slot] = answer.expiresAt;
    index.headLength[slot] = head.length;
    index.bodyLength[slot] = bodyLength;
    index.metaLength[slot] = meta.length;
    index.answerLength[slot] = answerLength;
    index.shape[slot] = shape;
    index.hash[slot] = hash;
    index.counted[slot] = key.counted;
    index.mayHold[slot] = 1;
    index.next[slot] = chainHead;
    this.newest.set(hash, seq);
    this.writeAt = at + length;
    this.liveBytes += length;
  }

  /**
   * Where a record of `length` bytes goes: after the newest record, or at the file's start
   * when it would end past maxBytes; the oldest records whose bytes it needs, or whose slot,
   * are given up first. Undefined, giving up nothing, when too many would go, or when one of
   * them, still live, is asked for at least as often as this one (`worth` this one's
   * estimate, `asked` theirs: TinyLFU's admission, as the memory tier's, response-cache.ts
   * `admits`) and has not held its place before. Records go only in order, so one allowed to
   * hold it for as long as it is asked for would keep every answer asked for less out of the
   * file; it holds it once in its life, and goes at the next try (a popular answer comes back
   * at its next miss). Under traffic that seldom asks again, each answer kept then holds its
   * place once before another takes it: half the writes.
   */
  private place(
    length: number,
    now: number,
    worth: number | undefined,
    asked: ((counted: number) => number) | undefined,
  ): number | undefined {
    const { maxBytes } = this.options;
    const at = this.writeAt + length <= maxBytes ? this.writeAt : 0;
    const { index } = this;
    // First only count what must go, and whether it may.
    let oldest = this.oldest;
    for (; oldest < this.end; oldest++) {
      const slot = index.slot(oldest);
      const start = index.at[slot]!;
      const entries = this.end - oldest;
      // The records kept lie from the oldest's start on to writeAt, wrapping past the end of
      // the file when the oldest lies at or after writeAt.
      const free =
        start < this.writeAt
          ? at === this.writeAt || length <= start
          : at === this.writeAt && at + length <= start;
      if (free && entries < this.maxEntries) break;
      if (oldest - this.oldest === MAX_GIVEN_UP) return undefined;
      if (
        worth !== undefined &&
        index.mayHold[slot] === 1 &&
        now < index.expiresAt[slot]! &&
        asked!(index.counted[slot]!) >= worth
      ) {
        index.mayHold[slot] = 0;
        return undefined;
      }
    }
    while (this.oldest < oldest) this.dropOldest();
    return at;
  }

  /** Gives up the oldest record: its bytes and its slot are the next records'. */
  private dropOldest(): void {
    const { index } = this;
    const seq = this.oldest++;
    const slot = index.slot(seq);
    // Older records under its hash went before it: it was its chain's last.
    if (this.newest.get(index.hash[slot]!) === seq) this.newest.delete(index.hash[slot]!);
    this.liveBytes -= index.length(slot);
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.newest.clear();
    this.oldest = this.end;
    this.liveBytes = 0;
    try {
      closeSync(fd);
    } catch {
      // Nothing is lost: the file was unlinked when it was made.
    }
  }

  private answerOf(slot: number, meta: string, body: Buffer): CachedAnswer {
    const shape = this.shapes[this.index.shape[slot]!]!;
    const { headers, pairs, token } = this.headOf(meta);
    return {
      version: this.version,
      expiresAt: this.index.expiresAt[slot]!,
      headers,
      body,
      head: headList(pairs, body.length),
      call: token === undefined ? shape.call : { ...shape.call, token },
      conditional: shape.conditional,
    };
  }

  private headOf(meta: string): Head {
    let head = this.heads.get(meta);
    if (head === undefined) {
      const [pairs, token] = JSON.parse(meta) as [string[], string | null];
      const headers: Record<string, string> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) headers[pairs[i]!] = pairs[i + 1]!;
      head = { headers, pairs, token: token ?? undefined };
      if (this.heads.size >= MAX_HEADS) this.heads.clear();
      this.heads.set(meta, head);
    }
    return head;
  }

  private shapeOf(call: Call, conditional: boolean): number | undefined {
    const { binding, operation, authenticate, route } = call;
    const name = JSON.stringify([binding, operation.name, authenticate, route, conditional]);
    let id = this.shapeIds.get(name);
    if (id === undefined) {
      if (this.shapes.length >= MAX_SHAPES) return undefined;
      id = this.shapes.length;
      const kept = { binding, operation, token: undefined, authenticate, parameters: NO_PARAMETERS };
      this.shapes.push({ call: route === undefined ? kept : { ...kept, route }, conditional });
      this.shapeIds.set(name, id);
    }
    return id;
  }

  /**
   * Whether the chain from `slot` has room for one more record: fewer than MAX_WALK records,
   * fewer than MAX_CHAIN of them live at `now`, and none live with this request's hash and
   * lengths (taken for this request's own: a true collision is then not kept, and its
   * lookup, which compares the request read back, finds nothing).
   */
  private roomInChain(
    seq: number,
    now: number,
    hash: number,
    headLength: number,
    bodyLength: number,
  ): boolean {
    const { index } = this;
    let live = 0;
    let walked = 0;
    for (; seq >= this.oldest; walked++) {
      if (walked === MAX_WALK) return false;
      const slot = index.slot(seq);
      seq = index.next[slot]!;
      if (now >= index.expiresAt[slot]!) continue;
      if (++live >= MAX_CHAIN) return false;
      if (
        index.hash[slot] === hash &&
        index.headLength[slot] === headLength &&
        index.bodyLength[slot] === bodyLength
      )
        return false;
    }
    return walked < MAX_WALK;
  }

  private empty(version: number): void {
    this.version = version;
    this.oldest = this.end = 0;
    this.writeAt = 0;
    this.liveBytes = 0;
    this.newest.clear();
    this.shapes.length = 0;
    this.shapeIds.clear();
    this.heads.clear();
  }

  private read(into: Buffer, at: number): boolean {
    let done = 0;
    while (done < into.length) {
      const got = readSync(this.fd!, into, done, into.length - done, at + done);
      if (got <= 0) throw new Error(`answer cache file: a record ends early at ${at + done}`);
      done += got;
    }
    return true;
  }

  private fail(error: unknown): void {
    this.close();
    this.options.onError?.(error);
  }
}

/** The pieces past their first `skip` bytes. */
function rest(pieces: readonly Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  for (const piece of pieces) {
    if (skip >= piece.length) skip -= piece.length;
    else {
      out.push(skip === 0 ? piece : piece.subarray(skip));
      skip = 0;
    }
  }
  return out;
}
