/**
 * Every store under an import, SQLite and PostgreSQL alike: readers see one state,
 * binaries are content-addressed chunked blobs that stream back, and blobs no record
 * uses are kept for a grace period.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, describe } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { bundleJson, generation, importFolder, pattern, scratch } from '../../test/support/bundles.ts';
import { DATABASES, type TestDatabase, type TestLocation, withPg } from '../../test/support/databases.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { hashToken } from '../auth/tokens.ts';
import { isScoopError } from '../contract/errors.ts';
import { ANSWERS_FORMAT } from '../prepare/prepared-operations.ts';
import { base64Chunks, base64Length } from '../xml/binary.ts';
import { CHUNK_BYTES, STORED_INPUT_BYTES } from './blob-chunks.ts';
import { type ContentStore, parseDoc, type StoredBlob } from './content-store.ts';
import { parsePostgresLocation } from './postgres/location.ts';

const s = scratch();

interface BlobRow {
  blob_id: number;
  sha256: string;
  size: number;
  chunk_count: number;
  orphaned_at: number | null;
}

/** The blobs table and the number of stored chunks, read from outside the store. */
async function blobTable(place: TestLocation): Promise<{ blobs: BlobRow[]; chunks: number }> {
  const dump = await place.dump();
  const blobs = (dump.blobs as BlobRow[]).sort((a, b) => a.blob_id - b.blob_id);
  return { blobs, chunks: dump.blob_chunks!.length };
}

async function blobOf(store: ContentStore, kind: 'anhaenge' | 'bilder', id: number): Promise<StoredBlob> {
  const record = await store.read((snapshot) => snapshot.get(kind, String(id)));
  assert.ok(record?.blob, `${kind} ${id} has no blob`);
  return record.blob;
}

async function streamed(blob: StoredBlob): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of blob.source.chunks()) parts.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

async function encoded(blob: StoredBlob): Promise<string> {
  let text = '';
  for await (const piece of base64Chunks(blob.source)) text += piece.toString('latin1');
  return text;
}

/** Rewrites the store's only blob as an earlier version stored it: raw chunks of CHUNK_BYTES. */
async function storeRaw(db: TestDatabase, location: string, bytes: Uint8Array): Promise<void> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES)
    chunks.push(Buffer.from(bytes.subarray(at, at + CHUNK_BYTES)));
  if (db.name === 'sqlite') {
    const file = new Database(location);
    try {
      file.transaction(() => {
        file.exec("DELETE FROM blob_chunks; UPDATE blobs SET encoding = 'raw'");
        file.prepare('UPDATE blobs SET chunk_count = ?').run(chunks.length);
        const add = file.prepare(
          'INSERT INTO blob_chunks (blob_id, seq, data) SELECT blob_id, ?, ? FROM blobs',
        );
        for (const [seq, chunk] of chunks.entries()) add.run(seq, chunk);
      })();
    } finally {
      file.close();
    }
    return;
  }
  const { schema } = parsePostgresLocation(location);
  await withPg(async (client) => {
    await client.query(`DELETE FROM "${schema}".blob_chunks`);
    await client.query(`UPDATE "${schema}".blobs SET encoding = 'raw', chunk_count = $1`, [chunks.length]);
    for (const [seq, chunk] of chunks.entries()) {
      await client.query(
        `INSERT INTO "${schema}".blob_chunks (blob_id, seq, data) SELECT blob_id, $1, $2 FROM "${schema}".blobs`,
        [seq, chunk],
      );
    }
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

for (const db of DATABASES) describe(db.name, () => storeBehaviour(db));

function storeBehaviour(db: TestDatabase): void {
  const { test } = db;
  afterEach(() => s.closeStores());

  describe('readers during an import', () => {
    /**
     * What one read sees: the article's prepared answer (a statement that carries the content
     * version), then the article and the areas, city-app area, attachment and newsletters it
     * leads to (statements that do not), each reduced to the generation its names end with.
     */
    function generationsSeen(store: ContentStore): Promise<Set<string>> {
      return store.read(async (snapshot) => {
        const seen = new Set<string>();
        const note = (doc: string) => {
          const gen = /gen (\d+)/.exec(doc)?.[1];
          assert.ok(gen, `no generation in ${doc}`);
          seen.add(gen);
        };
        const answer = await snapshot.answer('getArtikelDetails', '1', ANSWERS_FORMAT);
        assert.ok(answer, 'the article has a prepared answer');
        for (const [, gen] of answer.fragment.toString().matchAll(/gen (\d+)/g)) seen.add(gen!);
        const artikel = await snapshot.get('artikel', '1');
        assert.ok(artikel);
        note(artikel.doc);
        const doc = parseDoc(artikel);
        for (const record of (await snapshot.getMany('bereiche', doc.bereiche.map(String))).values())
          note(record.doc);
        for (const record of (await snapshot.getMany('anhaenge', doc.anhaenge.map(String))).values())
          note(record.doc);
        for (const { record } of await snapshot.all('cityAppBereiche')) note(record.doc);
        for (const { record } of await snapshot.all('newsletter')) note(record.doc);
        note((await snapshot.get('bilder', '200'))!.doc);
        return seen;
      });
    }

    /** Generation `gen` with large attachments written after the areas and before the article. */
    function largeGeneration(gen: number) {
      const big = [1, 2, 3, 4].map((n) => ({
        anhangID: 100 + n,
        file: `files/gross-${n}.bin`,
        name: `Teil ${n} gen ${gen}`,
      }));
      const { json, files } = generation(gen, {});
      const anhaenge = [...(json.anhaenge as object[]), ...big];
      const artikel = (json.artikel as Array<Record<string, unknown>>).map((a) => ({
        ...a,
        anhaenge: [100, 101, 102, 103, 104],
      }));
      const bigFiles = Object.fromEntries(big.map((b, i) => [b.file, pattern(3_000_000, gen * 10 + i)]));
      return s.bundle({ ...json, anhaenge, artikel }, { ...files, ...bigFiles });
    }

    for (const sameInstance of [false, true]) {
      const how = sameInstance ? 'the importing store instance' : 'another store instance on the same file';
      test(`readers through ${how} see the old or the new content, never a mix`, async () => {
        const opened = await s.open(db);
        const importer = opened.store;
        const reader = sameInstance ? importer : await db.attach(opened.location);
        try {
          await importFolder(importer, largeGeneration(1));
          const gen2 = largeGeneration(2);

          const observed: string[] = [];
          let done = false;
          const importing = importFolder(importer, gen2).finally(() => {
            done = true;
          });
          while (!done) {
            const seen = await generationsSeen(reader);
            assert.equal(seen.size, 1, `one read saw generations ${[...seen].join(' and ')}`);
            observed.push([...seen][0]!);
            await tick();
          }
          const summary = await importing;
          // The importing instance sees its import at once; another one a moment later, when
          // its version check (SQLite) or the import's notification (PostgreSQL) tells it.
          const committedAt = performance.now();
          let last = await generationsSeen(reader);
          while (!sameInstance && last.has('1') && performance.now() - committedAt < 1000) {
            await tick();
            last = await generationsSeen(reader);
          }
          assert.deepEqual([...last], ['2']);
          assert.equal(summary.kinds.anhaenge.changed, 5);
          // The import took long enough to be read many times; until it committed, all reads saw gen 1.
          assert.ok(observed.length >= 10, `only ${observed.length} reads during the import`);
          assert.ok(
            observed.slice(0, -1).every((gen) => gen === '1'),
            observed.join(','),
          );
        } finally {
          if (reader !== importer) await reader.close();
        }
      });
    }
  });

  describe('blobs', () => {
    test('identical files are stored once (content-addressed)', async () => {
      const opened = await s.open(db);
      const store = opened.store;
      const same = pattern(50_000, 5);
      const first = await importFolder(
        store,
        s.bundle(
          bundleJson({
            anhaenge: [
              { anhangID: 1, file: 'a/eins.bin' },
              { anhangID: 2, file: 'b/zwei.bin' },
            ],
            bilder: [{ bildID: 3, file: 'c/drei.bin' }],
          }),
          { 'a/eins.bin': same, 'b/zwei.bin': same, 'c/drei.bin': same },
        ),
      );
      assert.equal(first.blobsStored, 1);
      assert.equal(first.bytesStored, same.length);
      // A later bundle with the same bytes under another name stores nothing new.
      const later = await importFolder(
        store,
        s.bundle(bundleJson({ anhaenge: [{ anhangID: 4, file: 'vier.bin' }] }), { 'vier.bin': same }),
      );
      assert.equal(later.blobsStored, 0);
      const { blobs } = await blobTable(opened);
      assert.equal(blobs.length, 1);
      assert.equal(blobs[0]!.sha256, sha256(same));
      const ids = new Set(
        await Promise.all([
          blobOf(store, 'anhaenge', 1),
          blobOf(store, 'anhaenge', 2),
          blobOf(store, 'bilder', 3),
          blobOf(store, 'anhaenge', 4),
        ]).then((list) => list.map((b) => b.id)),
      );
      assert.equal(ids.size, 1);
    });

    test('largeBinaries names the binaries of at least a size, whatever kind holds them', async () => {
      const opened = await s.open(db);
      const store = opened.store;
      const big = pattern(300_000, 3);
      await importFolder(
        store,
        s.bundle(
          bundleJson({
            anhaenge: [
              { anhangID: 1, file: 'klein.bin' },
              { anhangID: 2, file: 'gross.bin' },
            ],
            bilder: [{ bildID: 3, file: 'gross.bin' }],
          }),
          { 'klein.bin': pattern(1000, 1), 'gross.bin': big },
        ),
      );
      const large = await store.largeBinaries(200_000);
      assert.deepEqual(
        large.map((source) => [source.size, source.contentId]),
        [
          [big.length, sha256(big)],
          [big.length, sha256(big)],
        ],
      );
      const parts: Buffer[] = [];
      for await (const chunk of large[0]!.chunks()) parts.push(Buffer.from(chunk));
      assert.ok(Buffer.concat(parts).equals(big), 'streamed bytes differ');
      assert.equal((await store.largeBinaries(1)).length, 3);
      assert.deepEqual(await store.largeBinaries(big.length + 1), []);
    });

    test('a large file is stored in several chunks and streams back byte-identical', async () => {
      const opened = await s.open(db);
      const store = opened.store;
      const bytes = pattern(3 * 1024 * 1024 + 17, 9);
      await importFolder(
        store,
        s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'gross.bin' }] }), { 'gross.bin': bytes }),
      );
      const blob = await blobOf(store, 'anhaenge', 1);
      assert.equal(blob.size, bytes.length);
      assert.equal(blob.source.size, bytes.length);
      assert.equal(blob.bytes, undefined, 'a multi-chunk blob is not held whole');
      const back = await streamed(blob);
      assert.ok(back.chunks > 1, `${back.chunks} chunk(s)`);
      assert.equal(back.bytes.length, bytes.length);
      assert.ok(back.bytes.equals(bytes), 'streamed bytes differ');
      const { blobs, chunks } = await blobTable(opened);
      assert.equal(blobs[0]!.chunk_count, back.chunks);
      assert.equal(chunks, back.chunks);
      // Each row is the base64 of 192 KiB of the file (256 KiB of text), the last one
      // shorter; streamed back one row at a time, decoded.
      const rows = ((await opened.dump()).blob_chunks as Array<{ seq: number; data: Uint8Array }>).sort(
        (a, b) => a.seq - b.seq,
      );
      assert.deepEqual(
        rows.map((row) => row.data.byteLength),
        [...Array(16).fill(256 * 1024), base64Length(17)],
      );
      rows.forEach((row, i) => {
        const piece = bytes.subarray(i * STORED_INPUT_BYTES, (i + 1) * STORED_INPUT_BYTES);
        assert.equal(
          Buffer.from(row.data).toString('latin1'),
          Buffer.from(piece).toString('base64'),
          `row ${i}`,
        );
      });
      assert.equal(back.chunks, 17);
      // An answer sends the stored text as it is.
      assert.ok(blob.source.base64Text, 'the stored encoding is offered');
      assert.equal(await encoded(blob), Buffer.from(bytes).toString('base64'));
    });

    test('a blob stored raw by an earlier version still streams, encoded as it goes', async () => {
      const opened = await s.open(db);
      const bytes = pattern(600 * 1024 + 1, 5);
      await importFolder(
        opened.store,
        s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'alt.bin' }] }), { 'alt.bin': bytes }),
      );
      await storeRaw(db, opened.location, bytes);
      const fresh = await db.attach(opened.location);
      try {
        const blob = await blobOf(fresh, 'anhaenge', 1);
        assert.equal(blob.source.base64Text, undefined, 'no stored encoding to offer');
        assert.ok((await streamed(blob)).bytes.equals(bytes));
        assert.equal(await encoded(blob), Buffer.from(bytes).toString('base64'));
      } finally {
        await fresh.close();
      }
    });

    /** A store holding one image of 1,000 bytes (one chunk), and those bytes. */
    async function oneSmallImage(seed: number): Promise<{ store: ContentStore; bytes: Buffer }> {
      const { store } = await s.open(db);
      const bytes = pattern(1000, seed);
      await importFolder(
        store,
        s.bundle(bundleJson({ bilder: [{ bildID: 1, file: 'k.bin' }] }), { 'k.bin': bytes }),
      );
      return { store, bytes };
    }

    test('a small file is one chunk, handed out whole and as a stream', async () => {
      const { store, bytes } = await oneSmallImage(4);
      const blob = await blobOf(store, 'bilder', 1);
      assert.ok(blob.bytes && Buffer.from(blob.bytes).equals(bytes));
      assert.ok((await streamed(blob)).bytes.equals(bytes));
    });

    test('a blob read without its chunk is its reference: size and SHA-256, the chunk left to its source', async () => {
      const { store, bytes } = await oneSmallImage(5);
      const { id } = await blobOf(store, 'bilder', 1);
      const [reference, whole, gone] = await store.read(async (snapshot) => [
        await snapshot.blob(id, false),
        await snapshot.blob(id),
        await snapshot.blob(id + 1000, false),
      ]);
      assert.ok(reference && whole);
      assert.equal(reference.base64, undefined);
      assert.equal(reference.size, bytes.length);
      assert.equal(reference.sha256, createHash('sha256').update(bytes).digest('hex'));
      assert.equal(reference.source.contentId, reference.sha256);
      assert.ok((await streamed(reference)).bytes.equals(bytes), 'its source still reads the chunk');
      assert.equal(whole.base64?.toString('latin1'), bytes.toString('base64'));
      assert.equal(gone, undefined);
    });

    test('a record read without its chunk has its blob as a reference, the chunk left to its source', async () => {
      const { store, bytes } = await oneSmallImage(6);
      const [reference, whole, gone] = await store.read(async (snapshot) => [
        await snapshot.get('bilder', '1', false),
        await snapshot.get('bilder', '1'),
        await snapshot.get('bilder', '2', false),
      ]);
      assert.ok(reference?.blob && whole?.blob);
      assert.equal(reference.doc, whole.doc);
      assert.equal(reference.blob.base64, undefined);
      assert.equal(reference.blob.bytes, undefined);
      assert.equal(reference.blob.sha256, createHash('sha256').update(bytes).digest('hex'));
      assert.equal(reference.blob.size, bytes.length);
      assert.ok((await streamed(reference.blob)).bytes.equals(bytes), 'its source still reads the chunk');
      assert.ok(whole.blob.bytes && Buffer.from(whole.blob.bytes).equals(bytes));
      assert.equal(gone, undefined);
    });

    test('an orphaned blob survives the grace period and is deleted after it', async () => {
      const opened = await s.open(db);
      const store = opened.store;
      const old = pattern(600_000, 1);
      const replacement = pattern(600_000, 2);
      const bundleWith = (bytes: Buffer) =>
        s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'a.bin' }] }), { 'a.bin': bytes });
      const options = (now: number) => ({ now: () => now, blobGraceMs: 1000 });
      const state = async () =>
        (await blobTable(opened)).blobs.map((b) => [b.sha256 === sha256(old) ? 'old' : 'new', b.orphaned_at]);

      await importFolder(store, bundleWith(old), options(10_000));
      const streaming = await blobOf(store, 'anhaenge', 1);
      // The record now points at other bytes: the old blob is orphaned at 20 000, not deleted.
      await importFolder(store, bundleWith(replacement), options(20_000));
      assert.deepEqual(await state(), [
        ['old', 20_000],
        ['new', null],
      ]);
      // A reader that fetched the record before can still stream the old bytes.
      assert.ok((await streamed(streaming)).bytes.equals(old));
      // But no record has them: files kept of them (cache/base64-cache.ts) may go.
      assert.equal(await store.binaryInUse(sha256(old)), false);
      assert.equal(await store.binaryInUse(sha256(replacement)), true);
      assert.equal(await store.binaryInUse('0'.repeat(64)), false);
      // Still inside the grace period (orphaned at 20 000, grace 1000, now 21 000).
      await importFolder(store, s.bundle(bundleJson({})), options(21_000));
      assert.deepEqual(await state(), [
        ['old', 20_000],
        ['new', null],
      ]);
      // After it: gone, with its chunks.
      await importFolder(store, s.bundle(bundleJson({})), options(21_001));
      assert.deepEqual(await state(), [['new', null]]);
      assert.equal((await blobTable(opened)).chunks, Math.ceil(600_000 / STORED_INPUT_BYTES));
      await assert.rejects(streamed(streaming), /gone/);
    });

    test('an orphaned blob used again within the grace period is adopted, not deleted', async () => {
      const opened = await s.open(db);
      const store = opened.store;
      const bytes = pattern(1000, 1);
      const withFile = s.bundle(bundleJson({ mode: 'replace', anhaenge: [{ anhangID: 1, file: 'a.bin' }] }), {
        'a.bin': bytes,
      });
      await importFolder(store, withFile, { now: () => 1000, blobGraceMs: 100 });
      await importFolder(store, s.bundle(bundleJson({ mode: 'replace' })), {
        now: () => 2000,
        blobGraceMs: 100,
      });
      assert.equal((await blobTable(opened)).blobs[0]!.orphaned_at, 2000);
      const again = await importFolder(store, withFile, { now: () => 2050, blobGraceMs: 100 });
      assert.equal(again.blobsStored, 0);
      await importFolder(store, s.bundle(bundleJson({})), { now: () => 9000, blobGraceMs: 100 });
      assert.deepEqual(
        (await blobTable(opened)).blobs.map((b) => [b.sha256, b.orphaned_at]),
        [[sha256(bytes), null]],
      );
    });
  });

  describe('articles that show a record', () => {
    test('referencing finds the articles whose list names one of the ids, by the number', async () => {
      const { store } = await s.open(db);
      const artikel = (artikelID: number, bereiche: number[] | undefined, anhaenge: number[] = []) => ({
        artikelID,
        text: `Artikel ${artikelID}`,
        ...(bereiche ? { bereiche } : {}),
        anhaenge,
      });
      await importFolder(
        store,
        s.bundle(
          bundleJson({
            bereiche: [1, 2, 3, 12].map((bereichID) => ({ bereichID, name: `B ${bereichID}` })),
            anhaenge: [{ anhangID: 12, file: 'a.txt' }],
            artikel: [artikel(5, [1, 12]), artikel(6, [2], [12]), artikel(7, undefined), artikel(8, [3, 2])],
          }),
          { 'a.txt': 'A' },
        ),
      );
      const found = (field: 'bereiche' | 'anhaenge', ids: string[]) =>
        store.importTransaction((tx) => tx.referencing('artikel', field, ids));
      assert.deepEqual(await found('bereiche', ['2']), ['6', '8']);
      assert.deepEqual(await found('bereiche', ['12', '3']), ['5', '8']);
      assert.deepEqual(await found('bereiche', ['1']), ['5'], 'not 12, nor an article without the field');
      assert.deepEqual(await found('anhaenge', ['12']), ['6'], 'the field asked for only');
      assert.deepEqual(await found('bereiche', ['01', '4', "1'"]), []);
      assert.deepEqual(await found('bereiche', []), []);
    });
  });

  describe('tokens and import runs', () => {
    test('tokens are kept as hashes: found while active, listed without the hash, revoked once', async () => {
      const { store, dump } = await s.open(db);
      const hash = hashToken('11111111-1111-1111-1111-111111111111');
      const other = hashToken('22222222-2222-2222-2222-222222222222');
      await store.addToken(hash, 'redaktion', '2026-01-02T03:04:05.000Z');
      await store.addToken(other, 'app', '2026-01-02T03:04:06.000Z');
      assert.ok((await store.findActiveToken(hash))?.equals(hash));
      assert.equal(await store.findActiveToken(hashToken('33333333-3333-3333-3333-333333333333')), undefined);
      await store.touchToken(hash, '2026-02-01T00:00:00.000Z');
      assert.equal(await store.revokeToken(other, '2026-03-01T00:00:00.000Z'), true);
      assert.equal(await store.revokeToken(other, '2026-03-02T00:00:00.000Z'), false, 'revoked once');
      assert.equal(await store.findActiveToken(other), undefined);
      assert.deepEqual(await store.listTokens(), [
        {
          hash,
          label: 'redaktion',
          createdAt: '2026-01-02T03:04:05.000Z',
          lastUsedAt: '2026-02-01T00:00:00.000Z',
          revokedAt: null,
        },
        {
          hash: other,
          label: 'app',
          createdAt: '2026-01-02T03:04:06.000Z',
          lastUsedAt: null,
          revokedAt: '2026-03-01T00:00:00.000Z',
        },
      ]);
      const stored = ((await dump()).tokens as Array<{ hash: Uint8Array }>).map((t) => Buffer.from(t.hash));
      assert.deepEqual(stored.sort(Buffer.compare), [hash, other].sort(Buffer.compare));
    });

    test('verifications are cached per token version: a token revoked by another process is refused at once', async () => {
      const serving = await s.open(db);
      const other = await db.attach(serving.location);
      try {
        const token = '44444444-4444-4444-4444-444444444444';
        await other.addToken(hashToken(token), 'app', '2026-01-02T03:04:05.000Z');
        let lookups = 0;
        const lookup = serving.store.findActiveToken.bind(serving.store);
        serving.store.findActiveToken = (hash) => {
          lookups++;
          return lookup(hash);
        };
        const auth = new Authenticator(serving.store);
        /** Whether the token verifies, retried until `want` or for a second (the version is read every few ms). */
        const settles = async (want: boolean) => {
          const until = Date.now() + 1000;
          for (;;) {
            const ok = await auth.verify(token).then(
              () => true,
              (error: unknown) => {
                assert.ok(isScoopError(error) && error.code === 'AUTH_FAILED', String(error));
                return false;
              },
            );
            if (ok === want || Date.now() > until) return ok;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        };
        assert.equal(await settles(true), true, 'a token created by another process verifies');
        const afterFirst = lookups;
        for (let i = 0; i < 5; i++) await auth.verify(token);
        assert.equal(lookups, afterFirst, 'repeated verifications are answered from the cache');
        assert.equal(await other.revokeToken(hashToken(token), '2026-03-01T00:00:00.000Z'), true);
        assert.equal(await settles(false), false, 'the revoked token is refused within a second');
        assert.ok(lookups > afterFirst, 'the token version moved, so the token was looked up again');
      } finally {
        await other.close();
      }
    });

    test('every import is recorded: committed ones with their content version, refused ones with why', async () => {
      const { store } = await s.open(db);
      assert.deepEqual(await store.importRuns(), {
        committed: 0,
        refused: 0,
        last: undefined,
        lastRefused: undefined,
      });
      await importFolder(store, s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] })), { now: () => 1000 });
      // Refused inside the import's transaction (a reference), and before it (an invalid bundle.json).
      await assert.rejects(
        importFolder(store, s.bundle(bundleJson({ artikel: [{ artikelID: 1, bereiche: [9] }] })), {
          now: () => 2000,
        }),
      );
      await assert.rejects(
        importFolder(store, s.bundle(bundleJson({ bereiche: [{ bereichID: 'x' }] })), {
          now: () => Date.parse('2026-05-06T07:00:00Z'),
        }),
      );
      await importFolder(store, s.bundle(bundleJson({ bereiche: [{ bereichID: 2 }] })), {
        now: () => Date.parse('2026-05-06T07:08:09Z'),
      });
      const runs = await store.importRuns();
      assert.deepEqual(
        {
          ...runs,
          lastRefused: runs.lastRefused && { ...runs.lastRefused, detail: typeof runs.lastRefused.detail },
        },
        {
          committed: 2,
          refused: 2,
          last: {
            outcome: 'imported',
            finishedAt: '2026-05-06T07:08:09.000Z',
            contentVersion: 2,
            detail: null,
          },
          lastRefused: {
            outcome: 'refused',
            finishedAt: '2026-05-06T07:00:00.000Z',
            contentVersion: null,
            detail: 'string',
          },
        },
      );
      assert.match(runs.lastRefused!.detail!, /bereiche\[0\]\.bereichID/);
      assert.equal(await store.contentVersion(), 2, 'a recorded refusal changes no content');
    });

    test('health: reachable, migrated to the latest schema, with the content version', async () => {
      const { store } = await s.open(db);
      const health = await store.health();
      assert.equal(health.schemaVersion, health.latestSchemaVersion);
      assert.equal(health.contentVersion, 0);
      // SQLite migrates as it opens and reports that to the first migrate() (for `scoop migrate`).
      await store.migrate();
      assert.deepEqual(await store.migrate(), [], 'nothing left to migrate');
    });
  });
}
