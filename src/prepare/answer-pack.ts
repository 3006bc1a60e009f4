/**
 * The answer pack: prepared answers as requests found them in the store, kept in a file of
 * this process's own, so that the next request for one reads its fragment and its binaries'
 * base64 texts with one `pread` each, synchronously. A prepared answer read from the store
 * costs a lookup through the record cache, a vouched read, an SQLite B-tree walk (or a
 * PostgreSQL round trip) and one more of each per binary: under the realistic mix about a
 * third of a request's CPU (docs/performance.md, "The fifteenth round").
 *
 * What is kept is the store's, unchanged: each fragment as stored (its references to blobs
 * included), and each blob's text once however many answers show it. The pack holds one
 * content version: a request for another version finds nothing, and the first answer kept
 * for a newer one empties it. It only grows: once `maxBytes` of file or `maxIndexBytes` of
 * index are used, answers go on being read from the store until the content changes.
 * A pack a filler moves from version to version (moveTo, prepare/pack-filler.ts) instead
 * drops only the answers an import changed, when the store can tell which
 * (store/answer-changes.ts), and keeps the rest with their slots and tags; the file and the
 * index keep what was dropped until it is a quarter of either, and the pack is emptied then.
 * Beside the index, in memory, the entity tags of answers sent over HTTP GET (tagOf): those
 * are of the serving app's envelope, so a pack serves one app.
 *
 * The file is removed from its folder as soon as it is open, so it never outlives the
 * process; its pages are the kernel's page cache, not the process's memory.
 */
import { closeSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import type { AnswerChanges, VersionMark } from '../store/answer-changes.ts';
import { grown } from '../support/typed-arrays.ts';
import { openUnlinkedFile } from '../support/unlinked-file.ts';
import { markWholeText, type TextOrigin, wholeTextOrigin } from '../xml/binary-text.ts';
import type { BodyPart, Layout } from '../xml/writer.ts';
import { splitFragment } from './fragment.ts';

export interface AnswerPackOptions {
  /** The folder the file is made in (it is unlinked at once). */
  readonly dir: string;
  /** Bound of the file. */
  readonly maxBytes: number;
  /** Bound of the index in memory, as `ENTRY_BYTES` and the keys count it. */
  readonly maxIndexBytes?: number;
  /** Told when the file cannot be written or read: the pack is then closed. */
  readonly onError?: (error: unknown) => void;
  /** Told about every lookup of a version the pack holds. */
  readonly onLookup?: (result: 'hit' | 'miss') => void;
}

/** What a prepared answer is, as the pack keeps it. */
export interface PackableAnswer {
  readonly fragment: Buffer;
  readonly visibleFrom: number | null;
  readonly visibleUntil: number | null;
}

/**
 * Where each kept answer and text is: a slot of a few typed arrays, not an object each, so
 * that a pack of the realistic mix's 124,000 answers costs about 16 MB of heap, not 65.
 */
class Slots {
  at = new Float64Array(1024);
  length = new Uint32Array(1024);
  /** NaN for none. */
  visibleFrom = new Float64Array(1024);
  visibleUntil = new Float64Array(1024);
  used = 0;

  add(at: number, length: number, visibleFrom: number | null, visibleUntil: number | null): number {
    if (this.used === this.at.length) this.grow();
    const slot = this.used++;
    this.at[slot] = at;
    this.length[slot] = length;
    this.visibleFrom[slot] = visibleFrom ?? Number.NaN;
    this.visibleUntil[slot] = visibleUntil ?? Number.NaN;
    return slot;
  }

  clear(): void {
    this.used = 0;
  }

  private grow(): void {
    const size = this.at.length * 2;
    this.at = grown(this.at, size);
    this.length = grown(this.length, size);
    this.visibleFrom = grown(this.visibleFrom, size);
    this.visibleUntil = grown(this.visibleUntil, size);
  }
}

/** keepMade's answers may take a MADE_SHARE-th of the file and of the index. */
const MADE_SHARE = 8;
/** What keepMade's answers refer to: none (their binaries are inline). */
const NO_TEXTS: ReadonlyMap<number, Buffer> = new Map();

/** A key that is a decimal integer is kept as a number: no string on the heap. */
const INTEGER = /^(0|[1-9][0-9]{0,14})$/;

/** What an index entry costs besides its key's characters: the map's slot and the typed arrays'. */
const ENTRY_BYTES = 64;
const DEFAULT_MAX_INDEX_BYTES = 32 * 1024 * 1024;
/** What a kept tag costs: its map entry and its string (34 characters: 93 bytes measured in Node 20). */
const TAG_BYTES = 128;

/** How moveTo brought the pack to a version. */
export type PackMove = 'kept' | 'advanced' | 'emptied';

export class AnswerPack {
  private fd: number | undefined;
  private version: number | undefined;
  /** The token of the version held (answer-changes.ts), when the store gave one. */
  private token: string | undefined;
  /** Whether a filler moves the pack (moveTo): then keep() never does. */
  private followed = false;
  /** Bytes of the file, and slots, no answer or text in the index holds any more (dropped by moveTo). */
  private garbage = 0;
  private deadSlots = 0;
  private written = 0;
  private indexBytes = 0;
  private full = false;
  /** Each kept answer's slot, by layout and operation, then by key. */
  private readonly answers = new Map<string, Map<string | number, number>>();
  /** Tables of answers requests made (keepMade): an import's changes never name them. */
  private readonly made = new Set<string>();
  /** What those answers take of the file and of the index. */
  private madeBytes = 0;
  private madeIndexBytes = 0;
  /** Each blob's base64 text's slot, by blob id. */
  private readonly texts = new Map<number, number>();
  /** The binary each whole text of several chunks stands for (xml/binary-text.ts), by its slot. */
  private readonly origins = new Map<number, TextOrigin>();
  /** The entity tag of an answer in its HTTP envelope, by its slot (tagOf). */
  private readonly tags = new Map<number, string>();
  private tagBytes = 0;
  /** Counts the times the index was dropped: a slot is an answer's only within one generation. */
  private generation = 0;
  private readonly slots = new Slots();
  private kept = 0;
  private readonly maxIndexBytes: number;

  private constructor(
    fd: number,
    private readonly options: AnswerPackOptions,
  ) {
    this.fd = fd;
    this.maxIndexBytes = options.maxIndexBytes ?? DEFAULT_MAX_INDEX_BYTES;
  }

  /** Makes the file in `options.dir`; throws what the file system says when it cannot. */
  static open(options: AnswerPackOptions): AnswerPack {
    return new AnswerPack(openUnlinkedFile(options.dir, 'answers'), options);
  }

  /** Bytes of the file in use. */
  get bytes(): number {
    return this.written;
  }

  /** Answers kept. */
  get size(): number {
    return this.kept;
  }

  /**
   * The inside of the answer kept for `version`, its binaries' texts in place, in buffers
   * from `allocate`; undefined when none is kept, or when it is not visible at `now` (its
   * store then says why). `found` is told where the answer is: the index's generation and
   * its slot (tagOf, keepTag).
   */
  inside(
    version: number,
    operation: string,
    key: string,
    layout: Layout,
    now: number,
    expires: (at: number) => void,
    allocate: (length: number) => Buffer = Buffer.allocUnsafe,
    found?: (generation: number, slot: number) => void,
  ): BodyPart[] | undefined {
    if (version !== this.version || this.fd === undefined) return undefined;
    const slot = this.answers.get(tableName(operation, layout))?.get(indexKey(key));
    this.options.onLookup?.(slot === undefined ? 'miss' : 'hit');
    if (slot === undefined) return undefined;
    const visibleFrom = this.slots.visibleFrom[slot]!;
    const visibleUntil = this.slots.visibleUntil[slot]!;
    // NaN (no bound) compares false either way.
    if (now < visibleFrom || now > visibleUntil) return undefined;
    const fragment = this.read(slot, allocate);
    if (!fragment) return undefined;
    const { markup, blobIds } = splitFragment(fragment);
    const parts: BodyPart[] = [markup[0]!];
    for (let i = 0; i < blobIds.length; i++) {
      const textSlot = this.texts.get(blobIds[i]!);
      const text = textSlot !== undefined && this.read(textSlot, allocate);
      if (!text) return undefined;
      const origin = this.origins.get(textSlot!);
      parts.push(origin === undefined ? text : markWholeText(text, origin), markup[i + 1]!);
    }
    if (!Number.isNaN(visibleUntil)) expires(visibleUntil + 1);
    found?.(this.generation, slot);
    return parts;
  }

  /**
   * The entity tag kept for the answer in `slot`, as `inside` told it (generation and slot).
   * HTTP GET answers are tagged by the SHA-256 of their bytes (server/etag.ts), and the bytes
   * of an answer in its envelope do not change while its slot is in the index. The tags are
   * the serving app's (its envelope's): a pack serves one app.
   */
  tagOf(generation: number, slot: number): string | undefined {
    return generation === this.generation ? this.tags.get(slot) : undefined;
  }

  /**
   * Keeps the tag of the answer in `slot`. Tags have a quarter of the index's bound of their
   * own, so that they never keep an answer out.
   */
  keepTag(generation: number, slot: number, tag: string): void {
    if (generation !== this.generation || slot >= this.slots.used || this.tags.has(slot)) return;
    // Dropped since it was found (moveTo): nothing finds it any more.
    if (Number.isNaN(this.slots.at[slot]!)) return;
    const bytes = tagBytes(tag);
    if (this.tagBytes + bytes > this.maxIndexBytes / 4) return;
    // A copy of its own: the tag made by etag.ts is a concatenation holding on to the whole
    // digest's text, twice the memory.
    this.tags.set(slot, Buffer.from(tag, 'latin1').toString('latin1'));
    this.tagBytes += bytes;
  }

  /** Tags kept (for tests). */
  get tagged(): number {
    return this.tags.size;
  }

  /** The version held and its token, when the store gave one (AnswerPack.moveTo). */
  get mark(): VersionMark | undefined {
    return this.version === undefined || this.token === undefined
      ? undefined
      : { version: this.version, token: this.token };
  }

  /**
   * Brings the pack to the store's version `to`. With the changes `since` the mark it holds
   * (the store read both in one state), it drops the answers they name and the texts of
   * blobs deleted (their ids may be given to other content), and keeps the rest; without,
   * or when the file holds too much that is dropped, it empties. From the first call on,
   * only this moves the pack: keep() of another version keeps nothing.
   */
  moveTo(
    to: { readonly version: number; readonly token: string | undefined },
    since?: { readonly mark: VersionMark; readonly changes: AnswerChanges },
  ): PackMove {
    this.followed = true;
    if (this.fd === undefined) return 'emptied';
    const held = this.mark;
    if (to.version === this.version && (held === undefined || held.token === to.token)) {
      this.token = to.token;
      return 'kept';
    }
    const from = since?.mark;
    if (from === undefined || from.version !== held?.version || from.token !== held.token)
      return this.emptyFor(to.version, to.token);
    for (const { operation, key } of since!.changes.answers)
      for (const layout of ['compact', 'indented'] as const) this.dropAnswer(operation, key, layout);
    this.dropMade();
    for (const blobId of since!.changes.blobs) {
      const slot = this.texts.get(blobId);
      if (slot === undefined) continue;
      this.texts.delete(blobId);
      this.indexBytes -= ENTRY_BYTES;
      if (this.origins.delete(slot)) this.indexBytes -= ENTRY_BYTES;
      this.dropSlot(slot);
    }
    if (this.garbage > this.options.maxBytes / 4 || this.deadSlots > Math.max(1024, this.slots.used / 4))
      return this.emptyFor(to.version, to.token);
    this.version = to.version;
    this.token = to.token;
    this.full = false;
    return 'advanced';
  }

  /** Whether the pack holds `version` and the text of this blob: it need not be read again. */
  hasText(version: number, blobId: number): boolean {
    return version === this.version && this.texts.has(blobId);
  }

  /** Whether answers of `version` can still be kept (the pack is open, and not full). */
  takes(version: number): boolean {
    return this.fd !== undefined && !(version === this.version && this.full);
  }

  /**
   * Keeps `answer` of `version`, read from the store, with the base64 text of each blob its
   * fragment refers to that the pack does not hold yet. A newer version empties the pack
   * first; an answer without one of its texts is not kept. True when it was kept now.
   */
  keep(
    version: number,
    operation: string,
    key: string,
    layout: Layout,
    answer: PackableAnswer,
    texts: ReadonlyMap<number, Buffer>,
  ): boolean {
    if (!this.takes(version)) return false;
    if (version !== this.version) {
      // Any other version, lower too (a store restored from a backup), is the content now;
      // but a pack a filler moves keeps what did not change, and only moveTo knows what.
      if (this.followed) return false;
      this.empty(version);
    }
    if (this.fd === undefined) return false;
    const name = tableName(operation, layout);
    const table = this.answers.get(name) ?? new Map<string | number, number>();
    const id = indexKey(key);
    if (table.has(id)) return false;
    const { blobIds } = splitFragment(answer.fragment);
    let needed = answer.fragment.length;
    let marked = 0;
    for (const blobId of blobIds) {
      if (this.texts.has(blobId)) continue;
      const text = texts.get(blobId);
      if (!text) return false;
      needed += text.length;
      if (wholeTextOrigin(text)) marked++;
    }
    const indexBytes =
      ENTRY_BYTES + (typeof id === 'string' ? 2 * id.length : 0) + ENTRY_BYTES * (blobIds.length + marked);
    if (!this.fits(needed, indexBytes)) {
      this.full = true;
      return false;
    }
    for (const blobId of blobIds) {
      if (this.texts.has(blobId)) continue;
      const text = texts.get(blobId)!;
      const at = this.write(text);
      if (at === undefined) return false;
      const slot = this.slots.add(at, text.length, null, null);
      this.texts.set(blobId, slot);
      const origin = wholeTextOrigin(text);
      if (origin !== undefined) this.origins.set(slot, origin);
    }
    const at = this.write(answer.fragment);
    if (at === undefined) return false;
    table.set(id, this.slots.add(at, answer.fragment.length, answer.visibleFrom, answer.visibleUntil));
    this.answers.set(name, table);
    this.indexBytes += indexBytes;
    this.kept++;
    return true;
  }

  /**
   * Keeps the inside of an answer a request's handler made of `version`'s content (a resized
   * image: no import prepares it, prepare/prepared-operations.ts madeKeyOf), as keep() keeps
   * a prepared one. The changes an import names never name such an answer, so the pack
   * drops them all whenever it moves to another version.
   */
  keepMade(version: number, operation: string, key: string, layout: Layout, inside: Buffer): void {
    // Their own share of the file and the index: clients choose the sizes and modes, and
    // must not crowd out prepared answers nor make the pack full for them (keep() would).
    const indexBytes = ENTRY_BYTES + 2 * key.length;
    if (
      this.madeBytes + inside.length > this.options.maxBytes / MADE_SHARE ||
      this.madeIndexBytes + indexBytes > this.maxIndexBytes / MADE_SHARE ||
      !this.fits(inside.length, indexBytes)
    )
      return;
    if (
      !this.keep(
        version,
        operation,
        key,
        layout,
        { fragment: inside, visibleFrom: null, visibleUntil: null },
        NO_TEXTS,
      )
    )
      return;
    this.made.add(tableName(operation, layout));
    this.madeBytes += inside.length;
    this.madeIndexBytes += indexBytes;
  }

  /** Whether `bytes` more of the file and `indexBytes` more of the index are within the bounds. */
  private fits(bytes: number, indexBytes: number): boolean {
    return (
      this.written + bytes <= this.options.maxBytes && this.indexBytes + indexBytes <= this.maxIndexBytes
    );
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.forget();
    try {
      closeSync(fd);
    } catch {
      // Nothing is lost: the file was unlinked when it was made.
    }
  }

  /** Drops one answer from the index, with its tag. */
  private dropAnswer(operation: string, key: string, layout: Layout): void {
    const table = this.answers.get(tableName(operation, layout));
    const id = indexKey(key);
    const slot = table?.get(id);
    if (slot === undefined) return;
    table!.delete(id);
    this.dropEntry(id, slot);
  }

  /** Drops every answer requests made (keepMade). */
  private dropMade(): void {
    for (const name of this.made) {
      const table = this.answers.get(name);
      if (table === undefined) continue;
      this.answers.delete(name);
      for (const [id, slot] of table) this.dropEntry(id, slot);
    }
    this.made.clear();
    this.madeBytes = 0;
    this.madeIndexBytes = 0;
  }

  /** What an answer's entry held, once it is out of its table: its count, index bytes, tag and slot. */
  private dropEntry(id: string | number, slot: number): void {
    this.kept--;
    // Its texts' entries stay counted: they are the texts', which stay.
    this.indexBytes -= ENTRY_BYTES + (typeof id === 'string' ? 2 * id.length : 0);
    const tag = this.tags.get(slot);
    if (tag !== undefined) {
      this.tags.delete(slot);
      this.tagBytes -= tagBytes(tag);
    }
    this.dropSlot(slot);
  }

  /** The slot's bytes are garbage now; NaN marks it dropped (keepTag). */
  private dropSlot(slot: number): void {
    this.garbage += this.slots.length[slot]!;
    this.deadSlots++;
    this.slots.at[slot] = Number.NaN;
  }

  private emptyFor(version: number, token: string | undefined): PackMove {
    this.empty(version);
    this.token = token;
    return 'emptied';
  }

  /** Drops the index: nothing in the file is found any more. */
  private forget(): void {
    this.answers.clear();
    this.made.clear();
    this.madeBytes = 0;
    this.madeIndexBytes = 0;
    this.texts.clear();
    this.origins.clear();
    this.tags.clear();
    this.tagBytes = 0;
    this.generation++;
    this.slots.clear();
    this.kept = 0;
    this.written = 0;
    this.garbage = 0;
    this.deadSlots = 0;
    this.indexBytes = 0;
    this.full = false;
  }

  private empty(version: number): void {
    this.version = version;
    this.token = undefined;
    this.forget();
    try {
      ftruncateSync(this.fd!, 0);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Appends `bytes`; where they are, or undefined when the file failed. */
  private write(bytes: Buffer): number | undefined {
    const at = this.written;
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.fd!, bytes, done, bytes.length - done, at + done);
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    this.written += bytes.length;
    return at;
  }

  private read(slot: number, allocate: (length: number) => Buffer): Buffer | undefined {
    const at = this.slots.at[slot]!;
    const length = this.slots.length[slot]!;
    const buffer = allocate(length).subarray(0, length);
    try {
      let done = 0;
      while (done < length) {
        const n = readSync(this.fd!, buffer, done, length - done, at + done);
        if (n === 0) throw new Error(`the answer pack ends at ${at + done}, short of ${at + length}`);
        done += n;
      }
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    return buffer;
  }

  private fail(error: unknown): void {
    this.close();
    this.options.onError?.(error);
  }
}

/** What a kept tag is counted as: its map entry and its string. */
function tagBytes(tag: string): number {
  return Math.max(TAG_BYTES, ENTRY_BYTES + 2 * tag.length);
}

function tableName(operation: string, layout: Layout): string {
  return layout === 'compact' ? operation : `${operation} indented`;
}

function indexKey(key: string): string | number {
  return INTEGER.test(key) ? Number(key) : key;
}
