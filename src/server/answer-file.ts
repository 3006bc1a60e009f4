/**
 * The answer cache's second tier: whole answers in a file of this process's own, each read
 * back with one `pread` into a buffer lent to its request. The first tier (response-cache.ts)
 * holds answers in memory, within a budget that must leave the server under its memory
 * target, so under many different requests most of what it keeps is evicted before it is
 * asked for again; a request then took the whole path (decoding, the answer pack or the
 * store, the envelope). Here the same answers are kept by the hundred thousand at the cost of
 * about 40 bytes of memory each, the bytes being the kernel's page cache (docs/performance.md,
 * "The twenty-first round").
 *
 * A record is the request as the cache keys it (its method, URL and headers as JSON, then its
 * body), the answer's entity tag, then the answer's body; the index in memory holds where it
 * is and its lengths, in typed arrays, and a lookup compares the whole request read back, so
 * a record answers only the very bytes it was kept for. What many answers share (their
 * headers but the tag, the call's operation, binding and token) is kept once, as a shape.
 *
 * Like the answer pack, the file holds one content version, only grows, and is emptied when
 * an answer of a newer version is kept; once `maxBytes` of file or `maxEntries` records are
 * used, nothing more is kept until then. A file that cannot be written or read closes the
 * tier (`onError`), and every lookup misses from then on.
 */
import { closeSync, readSync, writevSync } from 'node:fs';
import type { Call } from '../protocol/binding.ts';
import { openUnlinkedFile } from '../support/unlinked-file.ts';
import type { AnswerTier, CachedAnswer, FileableAnswer, RequestKey } from './response-cache.ts';

export interface AnswerFileOptions {
  /** The folder the file is made in (it is unlinked at once). */
  readonly dir: string;
  /** Bound of the file. */
  readonly maxBytes: number;
  /** Bound of the index: records kept (about 40 bytes of memory each). */
  readonly maxEntries?: number;
  /** Told when the file cannot be written or read: the tier is then closed. */
  readonly onError?: (error: unknown) => void;
}

/** What an answer has besides its body and tag, shared by the answers of one operation, binding and token. */
interface Shape {
  /** The headers, without the tag. */
  readonly headers: Readonly<Record<string, string>>;
  readonly call: Call;
  readonly conditional: boolean;
}

const DEFAULT_MAX_ENTRIES = 131_072;
/** Shapes kept at most: operations × bindings × tokens in use; more are not kept. */
const MAX_SHAPES = 4096;
/** Records looked at for one request: a request's own hash is shared only by chance. */
const MAX_CHAIN = 8;
/** A call's parameters are not kept: a cached answer is sent as it is, never invoked again. */
const NO_PARAMETERS: ReadonlyMap<string, readonly string[]> = new Map();

/** The request as a record starts: its key's fields but the body, as JSON, then a newline. */
function requestHead(key: RequestKey): Buffer {
  return Buffer.from(
    `${JSON.stringify([key.method, key.url, key.authorization, key.contentType, key.soapAction])}\n`,
    'utf8',
  );
}

class Index {
  at = new Float64Array(1024);
  expiresAt = new Float64Array(1024);
  /** Lengths of the record's request head, request body, tag and answer body. */
  headLength = new Uint32Array(1024);
  bodyLength = new Uint32Array(1024);
  tagLength = new Uint32Array(1024);
  answerLength = new Uint32Array(1024);
  shape = new Uint32Array(1024);
  /** The record kept before it under the same hash, or -1. */
  next = new Int32Array(1024);
  used = 0;

  grow(): void {
    const size = this.at.length * 2;
    const wider = <T extends Float64Array | Uint32Array | Int32Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.at = wider(this.at, new Float64Array(size));
    this.expiresAt = wider(this.expiresAt, new Float64Array(size));
    this.headLength = wider(this.headLength, new Uint32Array(size));
    this.bodyLength = wider(this.bodyLength, new Uint32Array(size));
    this.tagLength = wider(this.tagLength, new Uint32Array(size));
    this.answerLength = wider(this.answerLength, new Uint32Array(size));
    this.shape = wider(this.shape, new Uint32Array(size));
    this.next = wider(this.next, new Int32Array(size));
  }
}

export class AnswerFile implements AnswerTier {
  private fd: number | undefined;
  private version = -1;
  private written = 0;
  private readonly index = new Index();
  /** The newest record by its request's hash (RequestKey.counted). */
  private readonly newest = new Map<number, number>();
  private readonly shapes: Shape[] = [];
  private readonly shapeIds = new Map<string, number>();
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
    if (this.fd === undefined || version < this.version) return false;
    if (version > this.version) return true;
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
    if (this.fd === undefined || version !== this.version) return undefined;
    let slot = this.newest.get(key.counted);
    if (slot === undefined) return undefined;
    const head = requestHead(key);
    const bodyLength = key.body?.length ?? 0;
    const { index } = this;
    for (let seen = 0; slot !== -1 && seen < MAX_CHAIN; seen++, slot = index.next[slot]!) {
      if (index.headLength[slot] !== head.length || index.bodyLength[slot] !== bodyLength) continue;
      if (now >= index.expiresAt[slot]!) continue;
      const tagAt = head.length + bodyLength;
      const answerAt = tagAt + index.tagLength[slot]!;
      const record = allocate(answerAt + index.answerLength[slot]!);
      if (!this.read(record, index.at[slot]!)) return undefined;
      if (!record.subarray(0, head.length).equals(head)) continue;
      if (key.body && !record.subarray(head.length, tagAt).equals(key.body)) continue;
      return this.answerOf(slot, record.subarray(answerAt), record.toString('latin1', tagAt, answerAt));
    }
    return undefined;
  }

  /** Keeps `answer` to `key` when there is room (hasRoomFor); a newer version empties the file first. */
  keep(key: RequestKey, answer: FileableAnswer): void {
    if (!this.hasRoomFor(answer.version, 0)) return;
    if (answer.version > this.version) this.empty(answer.version);
    const { etag, ...headers } = answer.headers;
    const shape = this.shapeOf(headers, answer.call, answer.conditional);
    const chainHead = this.newest.get(key.counted) ?? -1;
    if (shape === undefined || this.chainLength(chainHead) >= MAX_CHAIN) return;
    const head = requestHead(key);
    const tag = Buffer.from(etag ?? '', 'latin1');
    const pieces = [head, ...(key.body ? [key.body] : []), tag, ...answer.body];
    let length = 0;
    for (const piece of pieces) length += piece.length;
    if (!this.hasRoomFor(answer.version, length)) return;
    const at = this.written;
    try {
      let done = 0;
      // writev may take less than everything (a full disk); what it took is not used.
      while (done < length) {
        const wrote = writevSync(this.fd!, done === 0 ? pieces : rest(pieces, done), at + done);
        if (wrote <= 0) throw new Error(`answer cache file: wrote ${wrote} bytes`);
        done += wrote;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    const { index } = this;
    if (index.used === index.at.length) index.grow();
    const slot = index.used++;
    index.at[slot] = at;
    index.expiresAt[slot] = answer.expiresAt;
    index.headLength[slot] = head.length;
    index.bodyLength[slot] = key.body?.length ?? 0;
    index.tagLength[slot] = tag.length;
    index.answerLength[slot] = length - head.length - (key.body?.length ?? 0) - tag.length;
    index.shape[slot] = shape;
    index.next[slot] = chainHead;
    this.newest.set(key.counted, slot);
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

  private answerOf(slot: number, body: Buffer, tag: string): CachedAnswer {
    const shape = this.shapes[this.index.shape[slot]!]!;
    const headers = tag === '' ? shape.headers : { ...shape.headers, etag: tag };
    return {
      version: this.version,
      expiresAt: this.index.expiresAt[slot]!,
      headers,
      body,
      head: [...Object.entries(headers).flat(), 'content-length', String(body.length), 'x-request-id', ''],
      call: shape.call,
      conditional: shape.conditional,
    };
  }

  private shapeOf(
    headers: Readonly<Record<string, string>>,
    call: Call,
    conditional: boolean,
  ): number | undefined {
    const { binding, operation, token, authenticate, route } = call;
    const name = JSON.stringify([headers, binding, operation.name, token, authenticate, route, conditional]);
    let id = this.shapeIds.get(name);
    if (id === undefined) {
      if (this.shapes.length >= MAX_SHAPES) return undefined;
      id = this.shapes.length;
      const kept: Call = { binding, operation, token, authenticate, parameters: NO_PARAMETERS };
      this.shapes.push({ headers, call: route === undefined ? kept : { ...kept, route }, conditional });
      this.shapeIds.set(name, id);
    }
    return id;
  }

  private chainLength(slot: number): number {
    let length = 0;
    for (; slot !== -1 && length < MAX_CHAIN; slot = this.index.next[slot]!) length++;
    return length;
  }

  private empty(version: number): void {
    this.version = version;
    this.written = 0;
    this.index.used = 0;
    this.newest.clear();
    this.shapes.length = 0;
    this.shapeIds.clear();
  }

  private read(into: Buffer, at: number): boolean {
    try {
      let done = 0;
      while (done < into.length) {
        const got = readSync(this.fd!, into, done, into.length - done, at + done);
        if (got <= 0) throw new Error(`answer cache file: a record ends early at ${at + done}`);
        done += got;
      }
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
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
