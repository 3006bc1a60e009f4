/**
 * An import with enough files to encode them in a worker thread (file-encoder.ts): each
 * file is stored as the bundle has it, each content once, and a file that changes while
 * it is imported refuses the bundle, which then changes nothing.
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertRefused, bundleJson, pattern, scratch } from '../../test/support/bundles.ts';
import { closeBundle, readBundle } from './bundle/read-bundle.ts';
import type { ContentStore } from './content-store.ts';
import { importBundle, importFolder } from './import.ts';
import { SMALL_FILE_BYTES, WORKER_MIN_BYTES } from './import-files.ts';

const s = scratch();

/** More small files' bytes than WORKER_MIN_BYTES, so the import starts the worker. */
const COUNT = Math.ceil((1.5 * WORKER_MIN_BYTES) / SMALL_FILE_BYTES);

function manyFiles(): string {
  const files: Record<string, Buffer> = {};
  for (let i = 1; i <= COUNT; i++) files[`files/${i}.bin`] = pattern(SMALL_FILE_BYTES - i, i);
  // Another name for content met before, and a large file (stored from this thread).
  files['files/again.bin'] = pattern(SMALL_FILE_BYTES - 1, 1);
  files['files/large.bin'] = pattern(SMALL_FILE_BYTES + 5, 99);
  const names = Object.keys(files);
  // The first file is named twice.
  const anhaenge = [...names, names[0]!].map((file, i) => ({ anhangID: i + 1, file }));
  return s.bundle(bundleJson({ anhaenge }), files);
}

async function storedBytes(store: ContentStore, id: number): Promise<Buffer | undefined> {
  return store.read(async (snapshot) => {
    const blob = (await snapshot.get('anhaenge', String(id)))?.blob;
    if (!blob) return undefined;
    const parts: Uint8Array[] = [];
    for await (const chunk of blob.source.chunks()) parts.push(chunk);
    return Buffer.concat(parts);
  });
}

describe('an import with many files', () => {
  test('stores each file as the bundle has it, each content once', async () => {
    const store = s.store();
    const summary = await importFolder(store, manyFiles(), { heldFiles: 3 });
    assert.equal(summary.kinds.anhaenge.added, COUNT + 3);
    assert.equal(summary.blobsStored, COUNT + 1);
    for (let i = 1; i <= COUNT; i++)
      assert.deepEqual(await storedBytes(store, i), pattern(SMALL_FILE_BYTES - i, i));
    assert.deepEqual(await storedBytes(store, COUNT + 1), pattern(SMALL_FILE_BYTES - 1, 1));
    assert.deepEqual(await storedBytes(store, COUNT + 2), pattern(SMALL_FILE_BYTES + 5, 99));
    assert.deepEqual(await storedBytes(store, COUNT + 3), pattern(SMALL_FILE_BYTES - 1, 1));
  });

  // The last file is encoded by the import's thread, the one before by the worker.
  for (const n of [COUNT, COUNT - 1]) {
    test(`a file replaced after it was hashed refuses the bundle, and nothing is stored (file ${n})`, async () => {
      const folder = manyFiles();
      const store = s.store();
      // Past the files held open, a file is opened again to be stored, and is no longer the same.
      const bundle = await readBundle(folder, { heldFiles: 0 });
      writeFileSync(path.join(folder, 'files/neu.bin'), 'anders');
      renameSync(path.join(folder, 'files/neu.bin'), path.join(folder, `files/${n}.bin`));
      try {
        await assertRefused(
          importBundle(store, bundle),
          `anhaenge[${n - 1}] (anhangID ${n}).file`,
          /changed while it was being imported/,
        );
      } finally {
        await closeBundle(bundle);
      }
      assert.equal(await storedBytes(store, 1), undefined);
    });
  }
});
