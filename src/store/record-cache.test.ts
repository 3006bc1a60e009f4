import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseDoc,
  type RecordKind,
  type Snapshot,
  type StoredBlob,
  type StoredRecord,
} from './content-store.ts';
import { RecordCache, type RecordSource } from './record-cache.ts';

/** A store in memory whose content version moves when `publish` is called. */
function fakeStore() {
  const state = { version: 1, data: new Map<string, string>([['bereiche/1', 'v1']]), reads: 0 };
  const snapshot: Snapshot = {
    get: async (kind: RecordKind, id: string) => {
      state.reads++;
      const doc = state.data.get(`${kind}/${id}`);
      return doc === undefined ? undefined : ({ doc } satisfies StoredRecord);
    },
    getMany: async () => new Map(),
    all: async () => [],
    blob: async () => undefined,
    answer: async () => undefined,
  };
  const source: RecordSource = {
    knownVersion: async () => state.version,
    consistent: async (read) => {
      for (;;) {
        const before = state.version;
        const result = await read(snapshot);
        if (state.version === before) return { result, version: before };
      }
    },
  };
  return {
    state,
    source,
    publish(doc: string) {
      state.version++;
      state.data.set('bereiche/1', doc);
    },
  };
}

const docOf = (s: Snapshot) => s.get('bereiche', '1').then((r) => r?.doc);

test('a second read of the same record is served from memory', async () => {
  const store = fakeStore();
  const lookups: string[] = [];
  const cache = new RecordCache(store.source, 1 << 20, { lookup: (r) => lookups.push(r) });
  assert.equal(await cache.read(docOf), 'v1');
  assert.equal(await cache.read(docOf), 'v1');
  assert.equal(store.state.reads, 1);
  assert.deepEqual(lookups, ['miss', 'hit']);
});

test('a new content version drops what was cached', async () => {
  const store = fakeStore();
  const cache = new RecordCache(store.source, 1 << 20);
  await cache.read(docOf);
  store.publish('v2');
  assert.equal(await cache.read(docOf), 'v2');
});

test('unknown ids are cached as unknown too', async () => {
  const store = fakeStore();
  const cache = new RecordCache(store.source, 1 << 20);
  const unknown = (s: Snapshot) => s.get('bereiche', '999');
  assert.equal(await cache.read(unknown), undefined);
  assert.equal(await cache.read(unknown), undefined);
  assert.equal(store.state.reads, 1);
});

test('a read an import overtook is retried and does not leave the stale record behind', async () => {
  const store = fakeStore();
  const cache = new RecordCache(store.source, 1 << 20);
  let first = true;
  const racing = async (s: Snapshot) => {
    const doc = await docOf(s);
    if (first) {
      first = false;
      store.publish('v2'); // an import commits while this read is under way
    }
    return doc;
  };
  assert.equal(await cache.read(racing), 'v2');
  assert.equal(await cache.read(docOf), 'v2');
});

test('the cache stays within its byte bound, dropping the least recently used first', async () => {
  const store = fakeStore();
  for (let i = 2; i <= 50; i++) store.state.data.set(`bereiche/${i}`, 'x'.repeat(1000));
  const cache = new RecordCache(store.source, 40_000);
  for (let i = 2; i <= 50; i++) await cache.read((s) => s.get('bereiche', String(i)));
  const before = store.state.reads;
  await cache.read((s) => s.get('bereiche', '50'));
  assert.equal(store.state.reads, before, 'the newest is still cached');
  await cache.read((s) => s.get('bereiche', '2'));
  assert.equal(store.state.reads, before + 1, 'the oldest was dropped');
});

test('a record read through the cache parses to its kind’s document, and only to that kind’s', async () => {
  const store = fakeStore();
  store.publish(JSON.stringify({ name: 'Verkehr', bereichID: 1 }));
  const cache = new RecordCache(store.source, 1 << 20);
  const bereich = await cache.read(async (s) => {
    const record = (await s.get('bereiche', '1'))!;
    // @ts-expect-error a record read as bereiche is not an article
    parseDoc<'artikel'>(record);
    return parseDoc(record);
  });
  const name: string | null = bereich.name;
  assert.equal(name, 'Verkehr');
  // @ts-expect-error a bereich has no article fields
  assert.equal(bereich.sichtbarVon, undefined);
});

/** A blob of 3 bytes as a store gives it: with its one chunk's text, or as a reference. */
function threeBytes(readChunk: boolean): StoredBlob {
  return {
    id: 7,
    sha256: 'a'.repeat(64),
    size: 3,
    ...(readChunk ? { base64: Buffer.from('YWJj') } : {}),
    source: { size: 3, chunks: async function* () {} },
  };
}

/**
 * Reads through a cache over a store that answers with `read(readChunk)`: a read with the
 * chunk serves later reads without it, a read without it never stands for the chunk.
 */
async function chunkServesReference(
  snapshotOf: (reads: boolean[]) => Snapshot,
  read: (snapshot: Snapshot, readChunk: boolean) => Promise<StoredBlob | undefined>,
): Promise<void> {
  const reads: boolean[] = [];
  const snapshot = snapshotOf(reads);
  const cache = new RecordCache(
    { ...fakeStore().source, consistent: async (r) => ({ result: await r(snapshot), version: 1 }) },
    1 << 20,
  );
  const base64 = async (readChunk: boolean) => (await cache.read((s) => read(s, readChunk)))?.base64;
  assert.equal(await base64(false), undefined);
  assert.equal(await base64(false), undefined);
  assert.deepEqual(await base64(true), Buffer.from('YWJj'), 'a reference does not stand for the chunk');
  assert.deepEqual(
    await base64(false),
    Buffer.from('YWJj'),
    'the read with its chunk stands for the reference',
  );
  assert.deepEqual(reads, [false, true]);
}

const EMPTY: Snapshot = {
  get: async () => undefined,
  getMany: async () => new Map(),
  all: async () => [],
  blob: async () => undefined,
  answer: async () => undefined,
};

test('a record read with its chunk serves a later read without it, not the other way round', async () => {
  await chunkServesReference(
    (reads) => ({
      ...EMPTY,
      get: async (_kind, _id, readChunk = true) => {
        reads.push(readChunk);
        return { doc: '{}', blob: threeBytes(readChunk) } satisfies StoredRecord;
      },
    }),
    async (s, readChunk) => (await s.get('bilder', '7', readChunk))?.blob,
  );
});

test('a blob read with its chunk serves a later read without it, not the other way round', async () => {
  await chunkServesReference(
    (reads) => ({
      ...EMPTY,
      blob: async (_id, readChunk = true) => {
        reads.push(readChunk);
        return threeBytes(readChunk);
      },
    }),
    (s, readChunk) => s.blob(7, readChunk),
  );
});
