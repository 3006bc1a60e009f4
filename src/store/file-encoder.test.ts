/**
 * The import's file encoder: its worker thread encodes exactly what the import's own
 * thread would, and refuses a file that changed since it was hashed the same way.
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertRefused, bundleJson, pattern, scratch } from '../../test/support/bundles.ts';
import { STORED_INPUT_BYTES } from './blob-chunks.ts';
import type { BundleFile } from './bundle/bundle.ts';
import { closeBundle, readBundle } from './bundle/read-bundle.ts';
import { encodeWhole } from './file-chunks.ts';
import { FileEncoder } from './file-encoder.ts';

const s = scratch();

const SIZES = [0, 1, 2, 3, 4_000, STORED_INPUT_BYTES, STORED_INPUT_BYTES + 1, 3 * STORED_INPUT_BYTES + 7];

/** A bundle of one attachment per size; `heldFiles` as the import reads it. */
async function files(heldFiles: number) {
  const names = SIZES.map((size) => `files/${size}.bin`);
  const folder = s.bundle(
    bundleJson({ anhaenge: names.map((file, i) => ({ anhangID: i + 1, file })) }),
    Object.fromEntries(names.map((name, i) => [name, pattern(SIZES[i]!, i + 1)])),
  );
  const bundle = await readBundle(folder, { heldFiles });
  const list = (bundle.records.get('anhaenge') ?? []).map((r) => r.file!);
  return { folder, bundle, list };
}

const base64 = (chunks: readonly Buffer[]) => Buffer.concat(chunks).toString('latin1');

describe('FileEncoder', () => {
  for (const heldFiles of [0, 3, 256]) {
    test(`the worker encodes as the import's thread does, files asked for at once (${heldFiles} held open)`, async () => {
      const { bundle, list } = await files(heldFiles);
      const encoder = new FileEncoder();
      try {
        const encoded = await Promise.all(list.map((file) => encoder.encode(file)));
        for (const [i, file] of list.entries()) {
          const expected = await encodeWhole(file, () => undefined, Buffer.alloc(STORED_INPUT_BYTES));
          assert.deepEqual(
            encoded[i]!.chunks.map((c) => c.length),
            expected.chunks.map((c) => c.length),
          );
          assert.equal(base64(encoded[i]!.chunks), pattern(SIZES[i]!, i + 1).toString('base64'));
          assert.equal(encoded[i]!.sha256, file.sha256);
          assert.equal(encoded[i]!.size, file.size);
        }
      } finally {
        await encoder.close();
        await closeBundle(bundle);
      }
    });
  }

  test('a file replaced since it was hashed is refused, naming it as the import does', async () => {
    const { folder, bundle, list } = await files(0);
    const file: BundleFile = list[4]!;
    writeFileSync(path.join(folder, 'files/neu.bin'), 'anders');
    renameSync(path.join(folder, 'files/neu.bin'), path.join(folder, 'files/4000.bin'));
    const encoder = new FileEncoder();
    try {
      await assertRefused(
        encoder.encode(file),
        'anhaenge[4] (anhangID 5).file',
        /changed while it was being imported/,
      );
      // The worker goes on with the next file.
      assert.equal((await encoder.encode(list[1]!)).size, 1);
    } finally {
      await encoder.close();
      await closeBundle(bundle);
    }
  });

  test('once closed, it reads no file any more', async () => {
    const { bundle, list } = await files(3);
    const encoder = new FileEncoder();
    await encoder.encode(list[1]!);
    const asked = list.map((file) => encoder.encode(file));
    await encoder.close();
    await closeBundle(bundle);
    const settled = await Promise.allSettled(asked);
    assert.ok(settled.every((s) => s.status === 'fulfilled' || /closed/.test(String(s.reason))));
    await assert.rejects(encoder.encode(list[2]!), /closed/);
  });
});
