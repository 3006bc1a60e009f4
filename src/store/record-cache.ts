/**
 * Consistent, cached reads for any store. Content changes only on import, and every
 * import bumps the content version in the same transaction as its data, so:
 * - hot records are kept in memory, tagged with the version they belong to, and the
 *   whole cache is dropped when the version moves on;
 * - a read that finds everything in the cache is one version's data by construction;
 * - a read that misses runs again inside the store's own consistent read (read-versions.ts),
 *   and fills the cache only when that read's version is the cache's.
 */
import type { CacheObserver } from '../cache/observer.ts';
import type { RecordKind, Snapshot, StoredAnswer, StoredBlob, StoredRecord } from './content-store.ts';

/** What a store offers underneath the cache. */
export interface RecordSource {
  /** The content version as this process knows it now; cheap, called on every read. */
  knownVersion(): Promise<number>;
  /**
   * Runs `read` against one consistent state and resolves with what the last attempt
   * returned and the content version that state belongs to. A store may run `read` more
   * than once (a retry after an import committed in between).
   */
  consistent<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<{ result: T; version: number }>;
}

type Entry =
  | StoredRecord
  | StoredAnswer
  | StoredBlob
  | undefined
  | ReadonlyArray<{ id: string; record: StoredRecord }>;

class Miss extends Error {}
/** Thrown, made once: an Error made per miss would capture a stack trace on every miss. */
const MISS = new Miss('not in the record cache');

/**
 * What an entry holds besides the bytes of its text and binary: its key, the record, answer
 * or blob object, a blob's source and its buffer's own object. Measured at up to 1,450
 * bytes (a blob with a small chunk; record-cache-memory.test.ts: a full cache holds at most
 * its budget); counted as 64 before, a budget filled with blob references held 8 times its
 * size.
 */
const ENTRY_BYTES = 1536;

function sizeOf(entry: Entry): number {
  if (entry === undefined) return ENTRY_BYTES;
  if ('fragment' in entry) return ENTRY_BYTES + entry.fragment.byteLength;
  if ('source' in entry) return ENTRY_BYTES + blobBytes(entry);
  if (!('doc' in entry)) return entry.reduce((n, e) => n + sizeOf(e.record), ENTRY_BYTES);
  return ENTRY_BYTES + entry.doc.length * 2 + (entry.blob ? blobBytes(entry.blob) : 0);
}

/** The key of an entry read without its chunk (`hitRead`). */
function withoutChunk(key: string): string {
  return `${key}\u0000without chunk`;
}

function readKey(key: string, readChunk: boolean): string {
  return readChunk ? key : withoutChunk(key);
}

/** What a blob holds in memory: its one chunk as stored (a larger blob holds none). */
function blobBytes(blob: StoredBlob): number {
  // base64 first: beside it, `bytes` is a getter that would decode the chunk.
  return blob.base64?.byteLength ?? blob.bytes?.byteLength ?? 0;
}

/**
 * The budget when none is set. Small: the answer cache in front sees the repeats (behind it
 * the record cache hit 0.23% of lookups on the realistic mix), and with that cache off, a
 * 16 MiB budget made every miss dearer (194-206 against 158-167 µs a request with 4 MiB;
 * docs/performance.md, "The sixth round").
 */
export const DEFAULT_RECORD_CACHE_BYTES = 4 * 1024 * 1024;

export class RecordCache {
  private version = -1;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly source: RecordSource,
    private readonly maxBytes: number,
    private readonly observer?: CacheObserver,
  ) {}

  private reset(version: number): void {
    this.entries.clear();
    this.bytes = 0;
    this.version = version;
  }

  private remember(key: string, entry: Entry): void {
    const size = sizeOf(entry);
    if (size > this.maxBytes / 8) return; // one huge record must not flush everything else
    this.entries.set(key, entry);
    this.bytes += size;
    // Least recently used first out: a Map iterates in insertion order and hits re-insert.
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(value);
    }
  }

  /**
   * The entry of a record or blob read with its chunk (`readChunk`) or without: one read
   * with the chunk serves a read without it too, not the other way round.
   */
  private hitRead(key: string, readChunk: boolean): Entry | typeof Miss {
    const entry = this.hit(key);
    return entry === Miss && !readChunk ? this.hit(withoutChunk(key)) : entry;
  }

  private hit(key: string): Entry | typeof Miss {
    if (!this.entries.has(key)) return Miss;
    const entry = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** A snapshot served from the cache alone; any miss aborts it. */
  private readonly cached: Snapshot = {
    get: async (kind, id, readChunk = true) => {
      const entry = this.hitRead(`${kind}\u0000${id}`, readChunk);
      if (entry === Miss) throw MISS;
      return entry as StoredRecord | undefined;
    },
    getMany: async (kind, ids) => {
      const found = new Map<string, StoredRecord>();
      for (const id of ids) {
        const entry = this.hit(`${kind}\u0000${id}`);
        if (entry === Miss) throw MISS;
        if (entry) found.set(id, entry as StoredRecord);
      }
      return found;
    },
    all: async (kind) => {
      const entry = this.hit(`${kind}\u0000*`);
      if (entry === Miss) throw MISS;
      return [...(entry as ReadonlyArray<{ id: string; record: StoredRecord }>)];
    },
    blob: async (blobId, readChunk = true) => {
      const entry = this.hitRead(`blob\u0000${blobId}`, readChunk);
      if (entry === Miss) throw MISS;
      return entry as StoredBlob | undefined;
    },
    answer: async (operation, key, format) => {
      const entry = this.hit(`answer\u0000${operation}\u0000${format}\u0000${key}`);
      if (entry === Miss) throw MISS;
      return entry as StoredAnswer | undefined;
    },
  };

  /** Wraps the store's own snapshot, noting what it reads for the cache. */
  private recording(snapshot: Snapshot, pending: Array<[string, Entry]>): Snapshot {
    return {
      get: async (kind, id, readChunk = true) => {
        const record = await snapshot.get(kind, id, readChunk);
        pending.push([readKey(`${kind}\u0000${id}`, readChunk), record]);
        return record;
      },
      getMany: async (kind, ids) => {
        const found = await snapshot.getMany(kind, ids);
        for (const id of ids) pending.push([`${kind}\u0000${id}`, found.get(id)]);
        return found;
      },
      all: async (kind: RecordKind) => {
        const list = await snapshot.all(kind);
        pending.push([`${kind}\u0000*`, list]);
        return list;
      },
      blob: async (blobId, readChunk = true) => {
        const blob = await snapshot.blob(blobId, readChunk);
        pending.push([readKey(`blob\u0000${blobId}`, readChunk), blob]);
        return blob;
      },
      answer: async (operation, key, format, readChunks) => {
        const answer = await snapshot.answer(operation, key, format, readChunks);
        pending.push([`answer\u0000${operation}\u0000${format}\u0000${key}`, answer]);
        return answer;
      },
    };
  }

  async read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    const known = await this.source.knownVersion();
    if (known !== this.version) this.reset(known);
    try {
      const result = await read(this.cached);
      this.observer?.lookup('hit');
      return result;
    } catch (error) {
      if (!(error instanceof Miss)) throw error;
    }
    this.observer?.lookup('miss');
    const done = await this.source.consistent(async (snapshot) => {
      const pending: Array<[string, Entry]> = [];
      const result = await read(this.recording(snapshot, pending));
      return { result, pending };
    });
    // Only what a read that the store vouches for as one version saw goes into the cache.
    const { version } = done;
    if (version > this.version) this.reset(version);
    if (version === this.version) for (const [key, entry] of done.result.pending) this.remember(key, entry);
    return done.result.result;
  }
}
