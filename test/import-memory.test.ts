/**
 * `scoop import` into PostgreSQL streams a large binary into the database in chunks: the
 * import process's peak resident memory (VmHWM in /proc/<pid>/status, sampled while it
 * runs) grows by far less than the file it stores, compared with importing a bundle
 * without it. The file is written piece by piece into a scratch folder, removed afterwards.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { STORED_INPUT_BYTES } from '../src/store/blob-chunks.ts';
import { base64Length } from '../src/xml/binary.ts';
import { scratch } from './support/bundles.ts';
import { dropSchema, newSchemaUrl, POSTGRES, withPg } from './support/databases.ts';
import { scoopPeakRss } from './support/peak-rss.ts';

const SIZE = 160 * 1024 * 1024 + 7; // not a multiple of a chunk's 192 KiB
const MB = 1024 * 1024;
const s = scratch();
const schemas: string[] = [];
after(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

/** A bundle of one attachment whose file has `size` bytes; resolves with the folder and the file's SHA-256. */
async function bundleWithFile(size: number): Promise<{ folder: string; sha256: string }> {
  const folder = s.dir();
  mkdirSync(path.join(folder, 'files'));
  const hash = createHash('sha256');
  const out = createWriteStream(path.join(folder, 'files', 'gross.bin'));
  // Fresh random bytes for each MiB would cost seconds; one block with a counter in front stays incompressible.
  const block = randomBytes(MB);
  for (let written = 0, n = 0; written < size; written += block.length, n++) {
    block.writeUInt32BE(n);
    const piece = Buffer.from(block.subarray(0, Math.min(block.length, size - written)));
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  writeFileSync(
    path.join(folder, 'bundle.json'),
    JSON.stringify({
      format: 'scoop-bundle/1',
      anhaenge: [{ anhangID: 1, file: 'files/gross.bin', filename: 'gross.bin', name: 'Groß' }],
    }),
  );
  return { folder, sha256: hash.digest('hex') };
}

/** `scoop import folder --db url` in a process of its own; resolves with its peak RSS once it exited 0. */
function importPeak(folder: string, url: string): Promise<number> {
  return scoopPeakRss(['import', folder, '--db', url]);
}

POSTGRES.test(`importing a ${SIZE >> 20} MB file keeps the import's memory far below its size`, async (t) => {
  const { url, schema } = newSchemaUrl();
  schemas.push(schema);
  const small = await bundleWithFile(64 * 1024);
  const large = await bundleWithFile(SIZE);
  // The baseline: the same command, store and migrations, with a 64 KiB file.
  const baseline = await importPeak(small.folder, url);
  const started = performance.now();
  const peak = await importPeak(large.folder, url);
  const seconds = (performance.now() - started) / 1000;
  const growth = peak - baseline;
  t.diagnostic(
    `peak RSS ${(baseline / MB).toFixed(0)} MB with 64 KiB, ${(peak / MB).toFixed(0)} MB with ${SIZE >> 20} MB (+${(growth / MB).toFixed(1)} MB), import ${seconds.toFixed(1)} s`,
  );
  // Holding the file would cost all of its 160 MB. Streaming it costs a few chunks, plus
  // garbage V8 has not collected yet: 30 to 50 MB here, the same for a 40 MB or a 320 MB file.
  assert.ok(growth < SIZE / 2, `peak RSS grew by ${(growth / MB).toFixed(1)} MB`);

  const stored = await withPg(async (client) => {
    const { rows } = await client.query<{ sha256: string; size: number; bytes: number; chunks: number }>(
      `SELECT b.sha256, b.size::int AS size, sum(octet_length(c.data))::int AS bytes, count(*)::int AS chunks
       FROM "${schema}".records r JOIN "${schema}".blobs b USING (blob_id) JOIN "${schema}".blob_chunks c USING (blob_id)
       WHERE r.kind = 'anhaenge' AND r.id = '1' GROUP BY b.sha256, b.size`,
    );
    return rows[0];
  });
  assert.deepEqual(stored, {
    sha256: large.sha256,
    size: SIZE,
    // Stored as base64, 192 KiB of the file a chunk (src/store/blob-chunks.ts).
    bytes: base64Length(SIZE),
    chunks: Math.ceil(SIZE / STORED_INPUT_BYTES),
  });
});
