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
 * Like the answer pack, the file holds one content version and only grows: a lookup for any
 * other version empties it (a store restored from a backup may bring a version number back
 * with other content, so not only a newer one), an answer of another version is not kept,
 * and once `maxBytes` of file or `maxEntries` records are used, nothing more is kept until
 * the version changes. Requests that differ only in what the answer does not depend on (an
 * Authorization header sent to a public operation) can fill it sooner; that only stops the
 * keeping, within the bounds. A file that cannot be written or read closes the tier
 * (`onError`), and every lookup misses from then on.
 */
import { closeSync, readSync, writevSync } from 'node:fs';
import type { Call } from '../protocol/binding.ts';
import { grown } from '../support/typed-arrays.ts';
import { openUnlinkedFile } from '../support/unlinked-file.ts';
import {
  type AnswerTier,
  type CachedAnswer,
  type FileableAnswer,
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

class Index {
  at = new Float64Array(1024);
  expiresAt = new Float64Array(1024);
  /** Lengths of the record's request head, request body, answer head and answer body. */
  headLength = new Uint32Array(1024);
  bodyLength = new Uint32Array(1024);
  metaLength = new Uint32Array(1024);
  answerLength = new Uint32Array(1024);
  shape = new Uint32Array(1024);
  /** keyHash of the whole request (its head and body), from its own hash. */
  hash = new Int32Array(1024);
  /** The record kept before it under the same hash, or -1. */
  next = new Int32Array(1024);
  used = 0;

  grow(): void {
    const size = this.at.length * 2;
    this.at = grown(this.at, size);
    this.expiresAt = grown(this.expiresAt, size);
    this.headLength = grown(this.headLength, size);
    this.bodyLength = grown(this.bodyLength, size);
    this.metaLength = grown(this.metaLength, size);
    this.answerLength = grown(this.answerLength, size);
    this.shape = grown(this.shape, size);
    this.hash = grown(this.hash, size);
    this.next = grown(this.next, size);
  }
}

export class AnswerFile implements AnswerTier {
  private fd: number | undefined;
  private version = -1;
  private written = 0;
  private readonly index = new Index();
  /**
   * The newest record by its whole request's hash (keyHash), not RequestKey.counted: that is
   * a GET's URL alone, which every Authorization sent with it shares.
   */
  private readonly newest = new Map<number, number>();
  private readonly shapes: Shape[] = [];
  private readonly shapeIds = new Map<string, number>();
  private readonly heads = new Map<string, Head>();
  private readonly maxEntries: number;

  private constructor(
    fd: number,
    private readonly options: AnswerFileOptions,
  ) {
    this.fd = fd;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  static open(options: AnswerFileOptions): AnswerFile {
    return new AnswerFile(openUnlinkedFile(options.dir, 'answer-cache'), options);
  }

  /** Records kept. */
  get size(): number {
    return this.index.used;
  }

  /** Bytes of the file in use. */
  get bytes(): number {
    return this.written;
  }

  /** Whether an answer of `bodyBytes` for `version` would be kept now. */
  hasRoomFor(version: number, bodyBytes: number): boolean {
    if (this.fd === undefined || version !== this.version) return false;
    return this.index.used < this.maxEntries && this.written + bodyBytes <= this.options.maxBytes;
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
      const head = requestHead(key);
      const hash = keyHash(head, key.body, key.counted);
      let slot = this.newest.get(hash);
      if (slot === undefined) return undefined;
      const bodyLength = key.body?.length ?? 0;
      const { index } = this;
      for (let walked = 0; slot !== -1 && walked < MAX_WALK; walked++, slot = index.next[slot]!) {
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
   * Keeps `answer` to `key` when there is room (hasRoomFor), its request's hash holds fewer
   * than MAX_CHAIN records live at `now`, and none of them is already this request's (many
   * connections missing the same answer at once would each keep it).
   */
  keep(key: RequestKey, answer: FileableAnswer, now: number): void {
    try {
      this.keepNow(key, answer, now);
    } catch (error) {
      this.fail(error);
    }
  }

  private keepNow(key: RequestKey, answer: FileableAnswer, now: number): void {
    const bodyLength = key.body?.length ?? 0;
    let answerLength = 0;
    for (const part of answer.body) answerLength += part.length;
    // Room for all but the answer's head, before any of the work below.
    if (!this.hasRoomFor(answer.version, bodyLength + answerLength)) return;
    const head = requestHead(key);
    const hash = keyHash(head, key.body, key.counted);
    const chainHead = this.newest.get(hash) ?? -1;
    if (!this.roomInChain(chainHead, now, hash, head.length, bodyLength)) return;
    const shape = this.shapeOf(answer.call, answer.conditional);
    if (shape === undefined) return;
    const meta = Buffer.from(
      JSON.stringify([Object.entries(answer.headers).flat(), answer.call.token ?? null]),
      'utf8',
    );
    const pieces = [head, ...(key.body ? [key.body] : []), meta, ...answer.body];
    const length = head.length + bodyLength + meta.length + answerLength;
    if (!this.hasRoomFor(answer.version, length)) return;
    const at = this.written;
    let done = 0;
    // writev may take less than everything (a full disk); what it took is not used.
    while (done < length) {
      const wrote = writevSync(this.fd!, done === 0 ? pieces : rest(pieces, done), at + done);
      if (wrote <= 0) throw new Error(`answer cache file: wrote ${wrote} bytes`);
      done += wrote;
    }
    const { index } = this;
    if (index.used === index.at.length) index.grow();
    const slot = index.used++;
    index.at[slot] = at;
    index.expiresAt[slot] = answer.expiresAt;
    index.headLength[slot] = head.length;
    index.bodyLength[slot] = bodyLength;
    index.metaLength[slot] = meta.length;
    index.answerLength[slot] = answerLength;
    index.shape[slot] = shape;
    index.hash[slot] = hash;
    index.next[slot] = chainHead;
    this.newest.set(hash, slot);
    this.written += length;
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.newest.clear();
    this.index.used = 0;
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
    slot: number,
    now: number,
    hash: number,
    headLength: number,
    bodyLength: number,
  ): boolean {
    const { index } = this;
    let live = 0;
    let walked = 0;
    for (; slot !== -1; walked++, slot = index.next[slot]!) {
      if (walked === MAX_WALK) return false;
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
    this.written = 0;
    this.index.used = 0;
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
